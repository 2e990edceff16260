/**
 * pi modules its package does not export (its output guard, model resolver, file reader, model list),
 * loaded by their URL next to the package entry. The same URL is the same module instance as pi's own,
 * which matters where a module holds state (the output guard's saved stdout).
 */
export function piModule<T>(path: string): Promise<T> {
	return import(new URL(path, import.meta.resolve("@earendil-works/pi-coding-agent")).href) as Promise<T>;
}

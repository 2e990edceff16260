/**
 * The soak's heap probe (`PIER_SOAK_HEAP=1`): which objects own the memory a daemon gains between two heap
 * snapshots. Each snapshot is written while no turn is in flight (the probe holds the sessions between turns), so
 * the pause delays no event and fails no request.
 *
 * Every object is charged to its owner: its first strong retainer, followed up through plain containers (objects,
 * arrays, maps, strings, contexts) to the first object of a named class or a closure, as `Class.property`. The
 * growth is the difference of each owner's total between the two snapshots.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Holds every session between turns at a mark, writes the heap, and lets them go on. */
export class HeapProbe {
	readonly files: string[] = [];
	private held: { name: string; waiting: Set<number>; released: Promise<void>; release: () => void } | undefined;
	private readonly finished = new Set<number>();

	constructor(
		private readonly dir: string,
		private readonly sessions: number,
		private readonly write: (path: string) => Promise<void>,
	) {}

	/** From now on no session starts a turn until the heap named `name` has been written. */
	hold(name: string): void {
		let release!: () => void;
		const released = new Promise<void>((done) => {
			release = done;
		});
		this.held = { name, waiting: new Set(), released, release };
		void this.writeWhenAllWait();
	}

	/** Before each of session `s`'s turns. */
	async beforeTurn(s: number): Promise<void> {
		const held = this.held;
		if (!held) return;
		held.waiting.add(s);
		await this.writeWhenAllWait();
		await held.released;
	}

	/** Session `s` starts no more turns. */
	async done(s: number): Promise<void> {
		this.finished.add(s);
		await this.writeWhenAllWait();
	}

	async snapshot(name: string): Promise<void> {
		const path = join(this.dir, `${name}.heapsnapshot`);
		await this.write(path);
		this.files.push(path);
	}

	private async writeWhenAllWait(): Promise<void> {
		const held = this.held;
		if (!held || held.waiting.size + this.finished.size < this.sessions) return;
		this.held = undefined;
		await this.snapshot(held.name);
		held.release();
	}
}

interface Snapshot {
	snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
	nodes: number[];
	edges: number[];
	strings: string[];
}

/** Containers an owner holds its data in: an object charged to one of these is charged on to its own owner. */
const CONTAINERS = new Set(["Object", "Array", "Map", "Set", "array", "hidden", "string", "number", "context"]);
const MAX_CLIMB = 12;

/** Each owner's total self size in one heap snapshot (bytes). */
export function bytesByOwner(file: string): Map<string, number> {
	const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
	const { node_fields, edge_fields, node_types, edge_types } = s.snapshot.meta;
	const nodeWidth = node_fields.length;
	const edgeWidth = edge_fields.length;
	const [typeAt, nameAt, sizeAt, edgesAt] = ["type", "name", "self_size", "edge_count"].map((f) =>
		node_fields.indexOf(f),
	);
	const [edgeTypeAt, edgeNameAt, toAt] = ["type", "name_or_index", "to_node"].map((f) => edge_fields.indexOf(f));
	const { nodes, edges, strings } = s;
	const count = nodes.length / nodeWidth;
	const retainer = new Int32Array(count).fill(-1);
	const retainedBy = new Int32Array(count).fill(-1);
	for (let i = 0, e = 0; i < count; i++) {
		const end = e + nodes[i * nodeWidth + edgesAt!]! * edgeWidth;
		for (; e < end; e += edgeWidth) {
			const type = edge_types[0][edges[e + edgeTypeAt!]!];
			if (type === "weak" || type === "shortcut") continue;
			const to = edges[e + toAt!]! / nodeWidth;
			if (retainer[to] === -1) {
				retainer[to] = i;
				retainedBy[to] = e;
			}
		}
	}
	// A closure owns what its context holds, under its function's name: `streamSimple().context`.
	const className = (i: number) => {
		const type = node_types[0][nodes[i * nodeWidth + typeAt!]!]!;
		const name = strings[nodes[i * nodeWidth + nameAt!]!]!;
		if (type === "object") return name.startsWith("system / Context") ? "context" : name;
		if (type === "closure") return `${name || "(anonymous)"}()`;
		return type.endsWith("string") ? "string" : type;
	};
	const edgeName = (e: number) => {
		const type = edge_types[0][edges[e + edgeTypeAt!]!];
		return type === "element" || type === "hidden" ? "[]" : String(strings[edges[e + edgeNameAt!]!]);
	};
	const owners = new Map<string, number>();
	for (let i = 0; i < count; i++) {
		const size = nodes[i * nodeWidth + sizeAt!]!;
		if (size === 0) continue;
		let owner = className(i);
		for (let at = i, climbed = 0; retainer[at]! !== -1 && climbed < MAX_CLIMB; climbed++) {
			const up = retainer[at]!;
			owner = `${className(up)}.${edgeName(retainedBy[at]!)}`;
			if (!CONTAINERS.has(className(up))) break;
			at = up;
		}
		owners.set(owner, (owners.get(owner) ?? 0) + size);
	}
	return owners;
}

/** The owners that gained most between two snapshots, in MiB, largest first. */
export function growthByOwner(before: string, after: string, top = 8): { owner: string; mib: number }[] {
	const a = bytesByOwner(before);
	const b = bytesByOwner(after);
	const owners = new Set([...a.keys(), ...b.keys()]);
	return [...owners]
		.map((owner) => ({ owner, mib: ((b.get(owner) ?? 0) - (a.get(owner) ?? 0)) / 2 ** 20 }))
		.sort((x, y) => y.mib - x.mib)
		.slice(0, top)
		.map(({ owner, mib }) => ({ owner, mib: Math.round(mib * 100) / 100 }));
}

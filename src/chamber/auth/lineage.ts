/**
 * Which credential minted which. Every credential keeps its lineage: the ids of the credentials it was minted
 * through, oldest first (a password login or a `pier pair` link starts a new one, empty). Revoking a credential
 * revokes every credential whose lineage holds its id, so a stolen token cannot leave a child behind; the whole
 * chain is kept (not only the parent) so that a middle link signing out or expiring does not cut its
 * descendants loose from what minted it.
 */

/** Generations below a password login or `pier pair` link: bounds each record's lineage and so auth.json. */
export const MAX_GENERATIONS = 16;

export class GenerationLimitError extends RangeError {
	constructor() {
		super(
			`a credential minted through ${MAX_GENERATIONS} others cannot mint more; sign in with the password or a ` +
				"`pier pair` link and mint it from there",
		);
		this.name = "GenerationLimitError";
	}
}

/** The lineage of a credential minted by the one whose own lineage is `parent` and whose id is `parentId`. */
export function childLineage(parent: readonly string[], parentId: string): string[] {
	if (parent.length >= MAX_GENERATIONS) throw new GenerationLimitError();
	return [...parent, parentId];
}

/** Whether a credential with this lineage dies with any of `revoked`. */
export function descendsFrom(lineage: readonly string[] | undefined, revoked: ReadonlySet<string>): boolean {
	return lineage?.some((id) => revoked.has(id)) ?? false;
}

/** The credential that minted this one (it may since have signed out or expired). */
export function mintedBy(lineage: readonly string[] | undefined): string | undefined {
	return lineage?.[lineage.length - 1];
}

/** The upload route's body, validated at the boundary by `jsonBody` (the page only needs its type). */
import { type Static, Type } from "typebox";

export const UploadBody = Type.Object(
	{
		/** The project directory to put the file in ("" for the root). */
		dir: Type.String({ maxLength: 4096 }),
		/** A plain file name: no `/`. */
		name: Type.String({ minLength: 1, maxLength: 255 }),
		/** The file's bytes, base64. */
		data: Type.String({ maxLength: 1_048_576, pattern: "^[A-Za-z0-9+/]*=*$" }),
		/** Replace an existing file of that name; without it an existing file is never touched. */
		overwrite: Type.Optional(Type.Boolean()),
	},
	{ additionalProperties: false },
);
export type UploadBody = Static<typeof UploadBody>;

/**
 * A JSON syntax error described without the text it is about. V8's messages quote the start of the input
 * (`Unexpected token 'S', "SECRET-TOK"... is not valid JSON`), and pier reads JSON from files a user may point
 * it at by mistake (a key file instead of a manifest): an error names the file and where it breaks, never what
 * it holds.
 */
export function jsonSyntaxProblem(text: string, error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	const at = /^(.*?)(?: in JSON)? at position (\d+)/.exec(message);
	// These V8 messages name what JSON expected, never the input; anything else (a quoted token) is cut.
	if (at && !/["'`]/.test(at[1]!.replace(/'[,:{}[\]]'/g, ""))) return `${at[1]} at ${lineColumn(text, Number(at[2]))}`;
	if (/^Unexpected end of JSON input$/.test(message)) return "it ends before the JSON does";
	return "an unexpected character";
}

function lineColumn(text: string, position: number): string {
	const before = text.slice(0, position);
	const line = before.split("\n").length;
	return `line ${line}, column ${position - before.lastIndexOf("\n")}`;
}

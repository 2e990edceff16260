/** The few colours `pier attach` draws itself (pi's components bring their own from pi's theme). */
const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

export const sgr = {
	dim: wrap(2, 22),
	bold: wrap(1, 22),
	red: wrap(31, 39),
	yellow: wrap(33, 39),
	cyan: wrap(36, 39),
};

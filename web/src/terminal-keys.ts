/** The page's side of `ctx.ui.custom` keys: the mapping lives with the daemon's tests (src/chamber/tui/terminal-keys.ts). */
export { type KeyLike, SCREEN_KEYS, terminalInput } from "../../src/chamber/tui/terminal-keys.js";

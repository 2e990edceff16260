/** The styles an extension's text may ask for (rpi's overlay list; pier's message renderers take the same). */
export const TEXT_STYLES = ["default", "bold", "dim", "italic", "accent", "error", "success", "warning"] as const;
export type TextStyle = (typeof TEXT_STYLES)[number];

/** The session a transcript belongs to, for rows that fetch more of themselves (an image's bytes). */
import { createContext } from "preact";

export const SessionIdContext = createContext<string>("");

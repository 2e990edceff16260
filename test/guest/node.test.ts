/** The guest conformance suite (conformance.ts) against the Node kit: a real child process on stdio. */
import { conformance } from "./conformance.js";

conformance("node");

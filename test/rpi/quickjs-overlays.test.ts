/** rpi's overlay tests, ported over pier's own equivalent programs (test/fixtures/rpi/inline). */
import { describe } from "node:test";
import { OVERLAY_CASES } from "./cases-overlays.js";
import { portCases } from "./cases.js";

describe("rpi parity: QuickJS overlays", () => portCases(OVERLAY_CASES));

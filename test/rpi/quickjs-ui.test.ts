/** rpi's tests of QuickJS ctx.ui, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { UI_CASES } from "./cases-ui.js";

describe("rpi parity: QuickJS ctx.ui", () => portCases(UI_CASES));

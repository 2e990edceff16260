/** rpi's tests of QuickJS event hooks, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { EVENT_CASES } from "./cases-events.js";

describe("rpi parity: QuickJS event hooks", () => portCases(EVENT_CASES));

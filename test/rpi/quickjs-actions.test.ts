/** rpi's tests of QuickJS invocations, session actions, cancellation and guards, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { ACTION_CASES } from "./cases-actions.js";

describe("rpi parity: QuickJS invocations, session actions, cancellation and guards", () => portCases(ACTION_CASES));

/** rpi's provider registration tests, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { PROVIDER_CASES } from "./cases-providers.js";

describe("rpi parity: QuickJS provider registration", () => portCases(PROVIDER_CASES));

/** rpi's loading and registration tests, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { REGISTRATION_CASES } from "./cases-registration.js";

describe("rpi parity: QuickJS loading and registration", () => portCases(REGISTRATION_CASES));

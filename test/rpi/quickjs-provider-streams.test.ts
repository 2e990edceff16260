/** rpi's provider streaming tests, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { PROVIDER_STREAM_CASES } from "./cases-provider-streams.js";

describe("rpi parity: QuickJS provider streams in a pier session", () => portCases(PROVIDER_STREAM_CASES));

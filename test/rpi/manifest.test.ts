/** rpi's tests of manifests, ported over pier's own equivalent programs (test/fixtures/rpi). */
import { describe } from "node:test";
import { portCases } from "./cases.js";
import { MANIFEST_CASES } from "./cases-manifest.js";

describe("rpi parity: manifests", () => portCases(MANIFEST_CASES));

/**
 * rpi's provider form end to end in `pier run`, written directly in JSONL (test/fixtures/process/raw-provider). The events become pi's message events, a tool call
 * really runs the tool and the second turn finishes, and every failure is an error message of the turn (secrets
 * redacted), never a crash. The checks: test/helpers/provider-stream.ts; the host's own checks run here, once.
 */
import { RAW_PROVIDER, providerStreamCliSuite } from "../helpers/provider-stream.js";

providerStreamCliSuite(RAW_PROVIDER, { hostChecks: true });

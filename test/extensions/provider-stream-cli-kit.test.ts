/**
 * rpi's provider form end to end in `pier run`, written with the Node kit. The events become pi's message events, a tool call
 * really runs the tool and the second turn finishes, and every failure is an error message of the turn (secrets
 * redacted), never a crash. The checks: test/helpers/provider-stream.ts.
 */
import { KIT_STREAM_PROVIDER, providerStreamCliSuite } from "../helpers/provider-stream.js";

providerStreamCliSuite(KIT_STREAM_PROVIDER, { hostChecks: false });

/**
 * rpi's provider form end to end in `pier run`, written three ways: directly in JSONL
 * (test/fixtures/process/raw-provider), with the Node kit and in QuickJS (test/fixtures/quickjs/stream-provider).
 * The events become pi's message events, a tool call really runs the tool and the second turn finishes, and every
 * failure is an error message of the turn (secrets redacted), never a crash. The checks: test/helpers/provider-stream.ts.
 */
import {
	KIT_STREAM_PROVIDER,
	providerStreamCliSuite,
	QUICKJS_STREAM_PROVIDER,
	RAW_PROVIDER,
} from "../helpers/provider-stream.js";

providerStreamCliSuite(RAW_PROVIDER);
providerStreamCliSuite(KIT_STREAM_PROVIDER);
providerStreamCliSuite(QUICKJS_STREAM_PROVIDER);

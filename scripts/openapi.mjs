// `npm run openapi`: writes docs/openapi.json from the built chamber (run `tsc -p .` first; the script does).
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { generateOpenApi } = await import("../dist/src/chamber/openapi/generate.js");
const generated = await generateOpenApi();
if (generated.undocumented.length > 0) {
	console.error(
		`pier: routes without an entry in src/chamber/openapi/operations.ts:\n  ${generated.undocumented.join("\n  ")}`,
	);
	process.exit(1);
}
const target = fileURLToPath(new URL("../docs/openapi.json", import.meta.url));
writeFileSync(target, generated.text);
console.log(`pier: wrote ${target}`);
process.exit(0);

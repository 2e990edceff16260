/**
 * Uploading a file into the project (a phone's photo or document, say): into a folder of the file browser, under
 * the daemon's size limit, and never over an existing file without asking: the daemon answers `file_exists`,
 * the page asks, and only a yes sends it again with `overwrite`.
 */
import { useRef, useState } from "preact/hooks";
import { UPLOAD_MAX_BYTES } from "../../../src/chamber/files/files-wire.js";
import { ApiError, api, describeError } from "../api.js";
import type { UploadResult } from "../types.js";
import { useConfirm } from "./Confirm.js";
import { Icon } from "./Icon.js";
import { formatBytes } from "./UserAttachments.js";

type Ask = ReturnType<typeof useConfirm>;

function readBase64(file: Blob): Promise<string> {
	return new Promise((resolve, reject) => {
		const reader = new FileReader();
		reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
		reader.onerror = () => reject(reader.error ?? new Error("could not read the file"));
		reader.readAsDataURL(file);
	});
}

/** Uploads `file` into `dir`; undefined when the user declined to replace an existing file. */
export async function uploadToProject(
	sessionId: string,
	dir: string,
	file: File,
	confirm: Ask,
): Promise<UploadResult | undefined> {
	if (file.size > UPLOAD_MAX_BYTES) {
		throw new Error(
			`${file.name} is ${formatBytes(file.size)}, over the ${formatBytes(UPLOAD_MAX_BYTES)} an upload may have; copy it into the project another way`,
		);
	}
	const body = { dir, name: file.name, data: await readBase64(file) };
	try {
		return await api.uploadFile(sessionId, body);
	} catch (err) {
		if (!(err instanceof ApiError) || err.code !== "file_exists") throw err;
		const where = dir ? `${dir}/${file.name}` : file.name;
		const ok = await confirm(`${where} already exists in the project. Replace it with the uploaded file?`, {
			confirmLabel: "Replace",
			danger: true,
		});
		return ok ? api.uploadFile(sessionId, { ...body, overwrite: true }) : undefined;
	}
}

/** The browser's Upload button: into the folder last opened. */
export function FilesUpload({
	sessionId,
	dir,
	onUploaded,
}: {
	sessionId: string;
	dir: string;
	onUploaded: (result: UploadResult) => void;
}) {
	const input = useRef<HTMLInputElement>(null);
	const confirm = useConfirm();
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>();
	const upload = async (file: File) => {
		setBusy(true);
		setError(undefined);
		try {
			const done = await uploadToProject(sessionId, dir, file, confirm);
			if (done) onUploaded(done);
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};
	return (
		<div class="files-upload">
			<input
				ref={input}
				type="file"
				hidden
				data-testid="files-upload-input"
				onChange={(e) => {
					const file = e.currentTarget.files?.[0];
					e.currentTarget.value = "";
					if (file) void upload(file);
				}}
			/>
			<button type="button" data-testid="files-upload" disabled={busy} onClick={() => input.current?.click()}>
				<Icon name="upload" /> Upload into {dir ? `${dir}/` : "the project root"}
			</button>
			<span class="muted">up to {formatBytes(UPLOAD_MAX_BYTES)}</span>
			{error && (
				<div class="inline-error" role="alert" data-testid="files-upload-error">
					{error}
				</div>
			)}
		</div>
	);
}

/**
 * The composer's side of the file browser and of the phone. A preview's Attach reaches the composer as a window
 * event (the browser and the message box share no parent state), and arrives as `@path`, as if picked from the
 * `@` list. On a phone, the camera and a file picker sit beside the box: photos go the way pasted images go;
 * another file is uploaded into the project's root (asking before it replaces one) and attached as `@name`.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../api.js";
import { isImage } from "../images.js";
import { useConfirm } from "./Confirm.js";
import { uploadToProject } from "./FilesUpload.js";
import { Icon } from "./Icon.js";
import { useToast } from "./Toasts.js";

const ATTACH = "pier:attach-file";

/** Attach a project file to the message being written. */
export function requestAttachFile(path: string): void {
	window.dispatchEvent(new CustomEvent(ATTACH, { detail: path }));
}

export function onAttachFileRequest(handler: (path: string) => void): () => void {
	const listener = (e: Event) => handler(String((e as CustomEvent).detail));
	window.addEventListener(ATTACH, listener);
	return () => window.removeEventListener(ATTACH, listener);
}

/** Phones and narrow windows: where the camera and the any-file picker are offered. */
const PHONE_QUERY = "(max-width: 699px), (pointer: coarse)";

function usePhone(): boolean {
	const [phone, setPhone] = useState(() => matchMedia(PHONE_QUERY).matches);
	useEffect(() => {
		const query = matchMedia(PHONE_QUERY);
		const changed = () => setPhone(query.matches);
		query.addEventListener("change", changed);
		return () => query.removeEventListener("change", changed);
	}, []);
	return phone;
}

/**
 * The camera and a file picker beside the composer's image picker, on phones and narrow windows only (a desktop
 * has the image picker, paste and drop, and the file browser's Upload).
 */
export function PhoneAttach({
	sessionId,
	onImages,
	onError,
}: {
	sessionId: string;
	onImages: (files: File[]) => void;
	onError: (message: string) => void;
}) {
	const camera = useRef<HTMLInputElement>(null);
	const picker = useRef<HTMLInputElement>(null);
	const confirm = useConfirm();
	const toast = useToast();
	const phone = usePhone();
	const take = async (files: File[]) => {
		const images = files.filter(isImage);
		if (images.length > 0) onImages(images);
		for (const file of files.filter((f) => !isImage(f))) {
			try {
				const done = await uploadToProject(sessionId, "", file, confirm);
				if (!done) continue;
				toast(`Uploaded ${done.path} into the project`);
				requestAttachFile(done.path);
			} catch (err) {
				onError(describeError(err));
			}
		}
	};
	const chosen = (e: Event) => {
		const input = e.currentTarget as HTMLInputElement;
		const files = [...(input.files ?? [])];
		input.value = "";
		void take(files);
	};
	if (!phone) return null;
	return (
		<span class="phone-attach">
			<input
				ref={camera}
				type="file"
				accept="image/*"
				capture="environment"
				hidden
				data-testid="camera-input"
				onChange={chosen}
			/>
			<input ref={picker} type="file" multiple hidden data-testid="phone-file-input" onChange={chosen} />
			<button
				type="button"
				class="icon-button"
				data-testid="attach-camera"
				title="Take a photo"
				aria-label="Take a photo"
				onClick={() => camera.current?.click()}
			>
				<Icon name="camera" />
			</button>
			<button
				type="button"
				class="icon-button"
				data-testid="attach-file"
				title="Attach a photo or file (a file is uploaded into the project)"
				aria-label="Attach a photo or file"
				onClick={() => picker.current?.click()}
			>
				<Icon name="paperclip" />
			</button>
		</span>
	);
}

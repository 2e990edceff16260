/**
 * One import point for the wire shapes, so components never reach into the daemon's tree themselves and a
 * move of wire.ts or descriptors.ts touches a single line here.
 */
export type {
	AttachedFile,
	CommandTrigger,
	CommandView,
	CustomInput,
	CustomView,
	DialogAnswer,
	DialogRequest,
	EventEnvelope,
	EventName,
	EventPayloads,
	McpAppRef,
	McpAppView,
	McpExposure,
	McpListView,
	McpServerView,
	McpSignInAnswer,
	ModelView,
	OpenOverlay,
	OverlayInput,
	PromptBody,
	QueueView,
	SessionHolder,
	SessionSummary,
	SessionUsage,
	TreeNodeView,
	SessionView,
	ToolCallView,
	TrashedSession,
	TranscriptRow,
	RowDrawing,
	DrawingsAnswer,
	TrustView,
	UiSettings,
	UiState,
} from "../../src/chamber/wire.js";
export type {
	AppSurface,
	CardAction,
	ComponentCard,
	FormField,
	GenericCard,
	NormalizedCard,
	Tone,
} from "../../src/chamber/ui/descriptors.js";

import type { EventEnvelope, EventName } from "../../src/chamber/wire.js";

/** The envelope as a discriminated union, so `switch (env.event)` narrows `env.payload`. */
export type AnyEnvelope = { [E in EventName]: EventEnvelope<E> }[EventName];

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type {
	AuditEntry,
	AuditView,
	PermissionChangeBody,
	PermissionList,
	PermissionSource,
	PermissionsView,
} from "../../src/chamber/audit/wire.js";
export type { CredentialInfo as Credential } from "../../src/chamber/auth/credential-list.js";
export type { CustomProviderResult, ProviderView } from "../../src/chamber/provider-wire.js";
export type { StyledLine, StyledSpan } from "../../src/chamber/tui/styled-text.js";
export type {
	WorktreeMerged,
	WorktreeRemoved,
	WorktreeStatus,
	WorktreeView,
} from "../../src/chamber/worktrees/wire.js";
export type {
	FileEntry,
	FileListing,
	FilePreview,
	UploadResult,
} from "../../src/chamber/files/files-wire.js";
export type { UploadBody } from "../../src/chamber/files/upload-body.js";
export type { Notice, NoticeSettings, PushDeviceView } from "../../src/chamber/push/notice.js";
// The terminal (issue 33, part 3): its wire, shared with the daemon.
export type {
	TerminalEventName,
	TerminalEventPayloads,
	TerminalView,
} from "../../src/chamber/terminal/terminal-wire.js";
// The package catalog (issue 34): what /api/pi/packages answers, shared with the daemon.
export type {
	InspectedExtension,
	InstallAnswer,
	InstalledPackage,
	InstalledView,
	Inspection,
	PackageDetails,
	PackageScope,
	SearchAnswer,
} from "../../src/extensions/catalog/wire.js";

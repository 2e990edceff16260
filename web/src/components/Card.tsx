/** An extension's `pichamber.ui` card: one of seven components, a tone, and up to eight command buttons. */
import type { ComponentCard, GenericCard, NormalizedCard } from "../types.js";
import { ActionButton, type CardPlace, type RunCardCommand } from "./ActionButton.js";
import { Markdown } from "./Markdown.js";
import { visible, visibleText } from "../visible.js";

export function Card({
	card,
	place,
	onCommand,
}: {
	card: NormalizedCard;
	place: CardPlace;
	onCommand: RunCardCommand;
}) {
	if (card.kind === "generic") return <GenericCardView card={card} />;
	const tone = card.tone ? ` tone-${card.tone}` : "";
	return (
		<section
			class={`card${tone}`}
			data-testid="card"
			data-card-id={card.id}
			data-component={card.component}
			data-tone={card.tone}
		>
			{card.title && <header class="card-title">{visible(card.title)}</header>}
			<div class="card-body">
				<CardBody card={card} />
			</div>
			{card.actions.length > 0 && (
				<div class="card-actions">
					{card.actions.map((action, i) => (
						<ActionButton
							key={`${i}:${action.command}:${action.label}`}
							action={action}
							onCommand={(command, args) => onCommand(place, command, args)}
						/>
					))}
				</div>
			)}
		</section>
	);
}

function GenericCardView({ card }: { card: GenericCard }) {
	return (
		<section class="card card-generic" data-testid="card" data-card-id={card.id} data-component="generic">
			<header class="card-title">{visible(card.reason)}</header>
			{card.title && <div class="card-subtitle">{visible(card.title)}</div>}
			<pre class="card-json">{visibleText(card.json)}</pre>
		</section>
	);
}

function toneClass(tone: string | undefined): string {
	return tone ? ` tone-${tone}` : "";
}

function CardBody({ card }: { card: ComponentCard }) {
	switch (card.component) {
		case "markdown":
			return <Markdown text={card.props.body ?? ""} />;
		case "kv":
			return (
				<dl class="kv">
					{(card.props.rows ?? []).map((row, i) => (
						<div key={i} class={`kv-row${toneClass(row.tone)}`}>
							<dt>{visible(row.label)}</dt>
							<dd>{visibleText(row.value)}</dd>
						</div>
					))}
				</dl>
			);
		case "list":
			return (
				<ul class="card-list">
					{(card.props.items ?? []).map((item, i) => (
						<li key={i} class={toneClass(item.tone).trim() || undefined}>
							<span class="list-label">{visible(item.label)}</span>
							{item.value !== undefined && <span class="list-value">{visibleText(item.value)}</span>}
						</li>
					))}
				</ul>
			);
		case "table":
			return (
				<div class="table-wrap">
					<table>
						<thead>
							<tr>
								{(card.props.columns ?? []).map((c, i) => (
									<th key={i}>{visible(c)}</th>
								))}
							</tr>
						</thead>
						<tbody>
							{(card.props.rows ?? []).map((row, r) => (
								<tr key={r}>
									{row.map((cell, c) => (
										<td key={c}>{visibleText(cell)}</td>
									))}
								</tr>
							))}
						</tbody>
					</table>
				</div>
			);
		case "progress": {
			const { label, value, max } = card.props;
			const ratio = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
			return (
				<div class="progress">
					<div class="progress-head">
						{label && <span>{visible(label)}</span>}
						<span class="progress-num">
							{value} / {max} ({Math.round(ratio * 100)}%)
						</span>
					</div>
					<div
						class="progress-track"
						role="progressbar"
						aria-valuemin={0}
						aria-valuemax={max}
						aria-valuenow={value}
						aria-label={label}
					>
						<div class="progress-fill" style={{ width: `${ratio * 100}%` }} />
					</div>
				</div>
			);
		}
		case "badges":
			return (
				<div class="badges">
					{(card.props.items ?? []).map((b, i) => (
						<span key={i} class={`badge${toneClass(b.tone)}`}>
							{visible(b.label)}
						</span>
					))}
				</div>
			);
		case "code":
			return (
				<pre class="code" data-language={card.props.language}>
					<code>{visibleText(card.props.code)}</code>
				</pre>
			);
	}
}

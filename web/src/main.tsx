import { render } from "preact";
import { App } from "./components/App.js";
import { registerServiceWorker } from "./notify.js";
import "./styles.css";

const root = document.getElementById("app");
if (root) render(<App />, root);
// The installable app's worker: the shell for offline starts, and notifications (notify.ts).
registerServiceWorker();

// Live status for ParForge's pages: each element with data-events follows its task's
// server-sent events (the same stream as /v1/tasks/{id}/events) and shows the status as it
// changes; a task page reloads when its task ends, so its tree and candidates are whole.
"use strict";

const TERMINAL = new Set(["succeeded", "no_verified_candidate", "failed", "cancelled", "not_run"]);

function follow(element) {
  const url = element.dataset.events;
  if (!url) return;
  const source = new EventSource(url);
  const badge = element.matches("[data-status], #status") ? element : element.querySelector("[data-status]");
  const live = document.getElementById("live");
  let seen = 0;
  source.addEventListener("status", (event) => {
    const data = JSON.parse(event.data);
    if (badge) {
      badge.textContent = data.status;
      badge.className = "status s-" + data.status;
    }
    if (TERMINAL.has(data.status)) {
      source.close();
      if (element.id === "status") window.location.reload();
    }
  });
  for (const kind of ["step", "candidate", "verdict"]) {
    source.addEventListener(kind, () => {
      seen += 1;
      if (live) live.textContent = seen + " new events";
    });
  }
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED && live) live.textContent = "live updates stopped";
  };
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-events]").forEach(follow);
});

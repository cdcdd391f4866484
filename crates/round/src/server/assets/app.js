// boardscribe's live page: board states arrive as Server-Sent Events and replace
// the board's card (or detail) that the server rendered; arbiter buttons post
// actions with the token given once in the address (?token=...), which then
// leaves the address (history, bookmarks, screen shares) for the tab's storage.
// The server's Content-Security-Policy runs this file only: no inline script.
(() => {
  "use strict";
  const params = new URLSearchParams(location.search);
  let token = params.get("token");
  if (token) {
    params.delete("token");
    const rest = params.toString();
    history.replaceState(history.state, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }
  try {
    if (token) sessionStorage.setItem("boardscribe-token", token);
    else token = sessionStorage.getItem("boardscribe-token");
  } catch (e) { /* storage may be off */ }
  if (token) document.body.classList.add("arbiter");
  const page = document.body.dataset.page;
  const live = document.getElementById("live");
  const message = document.getElementById("message");
  const say = (text, bad) => {
    message.textContent = text;
    message.hidden = !text;
    message.classList.toggle("bad", !!bad);
  };
  let ended = false;
  // A board's page hears of its board only.
  const one = document.querySelector("section.detail[data-board]");
  const events = new EventSource(one ? "/events?board=" + encodeURIComponent(one.dataset.board) : "/events");
  events.addEventListener("open", () => { if (!ended) live.textContent = "live"; });
  events.addEventListener("error", () => { if (!ended) live.textContent = "reconnecting…"; });
  events.addEventListener("board", (e) => {
    const b = JSON.parse(e.data);
    const el = document.getElementById("board-" + b.number);
    if (!el || Number(el.dataset.version || -1) > b.version) return;
    const tmp = document.createElement("div");
    tmp.innerHTML = page === "board" ? b.detail : b.card;
    const fresh = tmp.firstElementChild;
    fresh.dataset.version = b.version;
    el.replaceWith(fresh);
  });
  events.addEventListener("end", () => {
    ended = true;
    live.textContent = "round over";
    live.classList.add("over");
  });
  document.addEventListener("click", async (e) => {
    const button = e.target.closest("button[data-action]");
    if (!button || !token) return;
    const d = button.dataset;
    const body = { action: d.action };
    if (d.alert) body.alert = Number(d.alert);
    if (d.result) body.result = d.result;
    // The move the arbiter sees as the last: refused if the record has moved on.
    if (d.ply) body.ply = Number(d.ply);
    if (d.action === "take_back" && !confirm("Take back the last recorded move of board " + d.board + "?")) return;
    if (d.action === "set_result" && !confirm("Set the result of board " + d.board + " to " + d.result + "?")) return;
    button.disabled = true;
    try {
      const r = await fetch("/api/board/" + d.board + "/action", {
        method: "POST",
        headers: { "content-type": "application/json", "x-arbiter-token": token },
        body: JSON.stringify(body),
      });
      const j = await r.json().catch(() => ({ message: r.statusText }));
      say(j.message, !r.ok);
    } catch (err) {
      say("the server cannot be reached: " + err, true);
    } finally {
      button.disabled = false;
    }
  });
  const camera = document.getElementById("camera");
  if (camera) {
    camera.addEventListener("error", () => { camera.hidden = true; });
    camera.addEventListener("load", () => { camera.hidden = false; });
    // It may have failed before this script ran (no frame kept yet).
    if (camera.complete && camera.naturalWidth === 0) camera.hidden = true;
    setInterval(() => { camera.src = camera.dataset.src + "?t=" + Date.now(); }, 2000);
  }
})();

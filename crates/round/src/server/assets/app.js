// boardscribe's live page: board states arrive as Server-Sent Events and replace
// the board's card (or detail) that the server rendered; arbiter buttons post
// actions with the token given once in the address (?token=...), which then
// leaves the address (history, bookmarks, screen shares) for the tab's storage.
// With the token the event stream is the arbiter's (alerts, controls); the
// arbiter's records are fetched with it in a header and saved as files.
// The server's Content-Security-Policy runs this file only: no inline script.
// The HTTP API is described in docs/http-api.md.
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
  const connect = () => {
    const q = new URLSearchParams();
    if (one) q.set("board", one.dataset.board);
    if (token) q.set("token", token);
    const rest = q.toString();
    const events = new EventSource("/events" + (rest ? "?" + rest : ""));
    events.addEventListener("open", () => { if (!ended) live.textContent = "live"; });
    events.addEventListener("error", () => {
      // Refused (a wrong token) closes the stream for good: the spectators' view.
      if (events.readyState === EventSource.CLOSED && token) {
        token = null;
        try { sessionStorage.removeItem("boardscribe-token"); } catch (err) { /* storage may be off */ }
        document.body.classList.remove("arbiter");
        say("the arbiter's token was refused: this is the spectators' page", true);
        connect();
        return;
      }
      if (!ended) live.textContent = "reconnecting…";
    });
    events.addEventListener("board", (e) => {
      const b = JSON.parse(e.data);
      const el = document.getElementById("board-" + b.number);
      const boards = document.querySelector("main.boards");
      // A board the page did not have (a broadcast's recorder that started
      // later) joins the round's page in number order.
      if (!el && (page === "board" || !boards)) return;
      if (el && Number(el.dataset.version || -1) > b.version) return;
      const tmp = document.createElement("div");
      tmp.innerHTML = page === "board" ? b.detail : b.card;
      const fresh = tmp.firstElementChild;
      fresh.dataset.version = b.version;
      if (el) {
        el.replaceWith(fresh);
      } else {
        const after = [...boards.children].find((c) => Number(c.dataset.board) > b.number);
        boards.insertBefore(fresh, after || null);
      }
    });
    events.addEventListener("end", () => {
      ended = true;
      live.textContent = "round over";
      live.classList.add("over");
    });
  };
  connect();
  // The arbiter's records: fetched with the token in a header (never in an
  // address), saved as a file.
  document.addEventListener("click", async (e) => {
    const link = e.target.closest("a[data-arbiter-href]");
    if (!link || !token) return;
    e.preventDefault();
    try {
      const r = await fetch(link.dataset.arbiterHref, { headers: { "x-arbiter-token": token } });
      if (!r.ok) { say("the arbiter's record was refused: " + r.status, true); return; }
      const url = URL.createObjectURL(await r.blob());
      const save = document.createElement("a");
      save.href = url;
      save.download = "arbiter-" + link.dataset.arbiterHref.split("/").pop();
      save.click();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (err) {
      say("the server cannot be reached: " + err, true);
    }
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

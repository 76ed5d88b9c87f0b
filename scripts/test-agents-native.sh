# Sourced by scripts/test-agents: native delivery against the real Claude
# Code (its messaging socket) and Codex CLI (swarm's app server), 20 sends
# each: 8 to an idle agent, 10 to a busy one (5 while a turn only waits
# for the model, 5 while a turn runs a tool, where Claude Code may take a
# message into the running turn), 2 while a permission dialog is open.
# Each must reach the model exactly once, what `msg --json` said (and what
# the watcher later logged) must agree with what the model got, and no
# send may answer the dialog (the MOCKTOOL canary stays absent). The
# model's requests are read whole from the stand-in's dump
# (`MOCKLLM_DUMP`), so a message taken inside a later request of a turn
# (an attachment, beside a tool result) is still counted once.
# It uses the helpers of scripts/test-agents (ok, bad, KIT, WORK, ...).

# How many times each of the texts $3.. newly appeared in the agent $1's
# own requests (mock log $2, its dump beside it as $2.dump): per request,
# the occurrences in the whole conversation it carries, added up where they
# grew (a conversation resent with each request counts each message once).
native_counts() {
    python3 - "$@" <<'EOF'
import json, os, sys
agent, log, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
dump = log + ".dump"
def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
prev = [0] * len(texts)
new = [0] * len(texts)
try:
    lines = open(log, encoding="utf-8").read().splitlines()
except FileNotFoundError:
    lines = []
for line in lines:
    r = json.loads(line)
    last = (r.get("texts") or [""])[-1]
    if agent == "claude" and not (r.get("api") == "anthropic" and r.get("tools")):
        continue
    if agent == "codex" and (r.get("api") != "openai" or last.startswith("Generate a concise")):
        continue
    path = os.path.join(dump, "%04d-%s.json" % (r["seq"], r["api"]))
    try:
        body = json.load(open(path, encoding="utf-8"))["body"]
    except (OSError, ValueError):
        continue
    convo = body.get("messages") if agent == "claude" else body.get("input")
    parts = list(strings(convo))
    for i, t in enumerate(texts):
        n = sum(p.count(t) for p in parts)
        new[i] += max(0, n - prev[i])
        prev[i] = n
for n in new:
    print(n)
EOF
}

# The latest outcome of message $2 for agent $3 (default agent-0) in
# project $1's log: "status confirmed_by".
native_logged() {
    python3 - "$1/agent_messages.log" "$2" "${3:-agent-0}" <<'EOF'
import json, sys
path, want, agent = sys.argv[1], sys.argv[2], sys.argv[3]
last = "none -"
for line in open(path, encoding="utf-8"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("event") == "delivery" and r.get("msg_id") == want:
        o = (r.get("outcomes") or {}).get(agent)
        if o:
            last = "%s %s" % (o.get("status"), o.get("confirmed_by") or "-")
print(last)
EOF
}

# One native send of $2 (kind $1) through the swarm function $NS_SWARM;
# records its id, what msg --json said and its exit code.
ns_send() {
    local kind=$1 text=$2 out rc said
    out="$($NS_SWARM msg agent-0 INFO --from operator --json -- "$text" 2>&1)" && rc=0 || rc=$?
    said="$(printf '%s' "$out" | python3 -c '
import json, sys
try:
    v = json.load(sys.stdin)
except ValueError:
    print("- none - -"); sys.exit()
o = v["outcomes"]["agent-0"]
print(v.get("msg_id", "-"), o.get("status"), o.get("via"), o.get("confirmed_by") or "-")' 2>/dev/null || echo "- none - -")"
    NS_KIND+=("$kind")
    NS_TEXT+=("$text")
    NS_ID+=("${said%% *}")
    NS_SAID+=("${said#* } exit=$rc")
}

# The agent's state as the kit reads it, on the pane $NS_PANE of tmux
# server $NS_TMUX.
ns_state() { REALAGENTS_TMUX="$NS_TMUX" "$KIT/realagents.sh" state "$NS_PANE" 2>/dev/null || true; }
ns_wait_state() { # state [seconds]
    local deadline=$((SECONDS + ${2:-60}))
    until ns_state | grep -q " $1\$"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.3
    done
}
ns_type() { # text: typed into the agent's box and sent, as a person would
    $NS_TMUX send-keys -t "$NS_PANE" -l "$1"
    sleep 0.3
    $NS_TMUX send-keys -t "$NS_PANE" Enter
}
ns_count() { native_counts "$NS_AGENT" "$NS_LOG" "$1"; }
ns_wait_model() { # text [seconds]: until the model got it
    local deadline=$((SECONDS + ${2:-90}))
    until [ "$(ns_count "$1")" -ge 1 ]; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.5
    done
}

# The 20 sends to agent-0 (NS_AGENT claude|codex), swarm run through the
# function NS_SWARM in project NS_PROJECT, its pane NS_PANE on the tmux
# server NS_TMUX, the stand-in's log NS_LOG and canary directory
# NS_CANARY. A watcher (started here through NS_SWARM) follows what the
# agent accepted.
native_sends() {
    local i n tag watch_pid file read prompt
    NS_KIND=() NS_TEXT=() NS_ID=() NS_SAID=()
    tag="$RANDOM"
    $NS_SWARM watch >"$WORK/native-watch-$NS_AGENT.log" 2>&1 &
    watch_pid=$!
    ns_wait_state idle 60 || true

    # 8 idle: each taken at once.
    for i in 1 2 3 4 5 6 7 8; do
        ns_wait_state idle 90 || true
        ns_send idle "native send 0$i idle $tag"
        ns_wait_model "native send 0$i idle $tag" 60 || true
    done

    # 5 while a turn waits for the model: queued, taken when it ends.
    ns_wait_state idle 90 || true
    ns_type "a long turn MOCKSLEEP25"
    if ns_wait_state busy 30; then
        for i in 1 2 3 4 5; do ns_send busy "native send 1$i busy $tag"; done
    else
        bad "$NS_AGENT never looked busy for the first busy sends"
    fi
    ns_wait_model "native send 15 busy $tag" 120 || true

    # 5 while a turn runs a tool (Claude Code reads a file, which it does
    # without asking; Codex CLI runs a sandboxed command): Claude Code may
    # take them into the running turn, next to the tool's result.
    ns_wait_state idle 90 || true
    file="$NS_PROJECT/native-notes.txt"
    echo "notes" > "$file"
    case $NS_AGENT in
        claude) prompt="a tool turn MOCKSLEEP15 MOCKCALL$tag:Read:{\"file_path\": \"$file\"}" ;;
        *) prompt="a tool turn MOCKSLEEP15 MOCKTOOLnt$tag" ;;
    esac
    ns_type "$prompt"
    if ns_wait_state busy 30; then
        for i in 6 7 8 9; do ns_send busy "native send 1$i busy tool $tag"; done
        ns_send busy "native send 20 busy tool $tag"
    else
        bad "$NS_AGENT never looked busy for the tool turn"
    fi
    ns_wait_model "native send 20 busy tool $tag" 120 || true

    # 2 while a permission dialog is open: accepted, and the dialog stays
    # as it is (the tool never runs); taken once the person closed it.
    ns_wait_state idle 90 || true
    case $NS_AGENT in
        claude) ns_type "a dialog MOCKTOOLnd$tag" ;;
        *) ns_type "a dialog MOCKTOOLnd$tag MOCKESC" ;;
    esac
    if ns_wait_state dialog 60; then
        ns_send dialog "native send 21 dialog $tag"
        ns_send dialog "native send 22 dialog $tag"
        sleep 2
        read="$(ns_state)"
        [ "$read" = "$NS_AGENT dialog" ] && ok "$NS_AGENT: the dialog is still open after two native sends" \
            || bad "$NS_AGENT: after two native sends the kit reads: $read"
        $NS_TMUX send-keys -t "$NS_PANE" Escape
    else
        bad "$NS_AGENT: no dialog appeared"
    fi
    ns_wait_model "native send 22 dialog $tag" 120 || true
    ns_wait_state idle 60 || true

    # Let the watcher settle what was accepted (a few of its rounds).
    local deadline=$((SECONDS + 30)) settled
    while [ $SECONDS -lt $deadline ]; do
        settled=1
        for i in "${!NS_ID[@]}"; do
            case "$(native_logged "$NS_PROJECT" "${NS_ID[$i]}")" in
                delivered*|dropped*|expired*) ;;
                *) settled=0 ;;
            esac
        done
        [ "$settled" = 1 ] && break
        sleep 1
    done
    kill "$watch_pid" 2>/dev/null || true
    wait "$watch_pid" 2>/dev/null || true

    # The tally: once = the model got it exactly once; a false outcome =
    # what swarm said (at the send, or logged last) disagrees with what
    # the model got.
    local once=0 false=0 answered=0 unconfirmed=0 got logged said status
    mapfile -t got < <(native_counts "$NS_AGENT" "$NS_LOG" "${NS_TEXT[@]}")
    for i in "${!NS_TEXT[@]}"; do
        n="${got[$i]:-0}"
        said="${NS_SAID[$i]}"
        status="${said%% *}"
        logged="$(native_logged "$NS_PROJECT" "${NS_ID[$i]}")"
        [ "$n" = 1 ] && once=$((once + 1))
        local wrong=""
        # Unconfirmed (no record within the send's wait) is no false word
        # when the log then says what became of it; it is counted apart.
        case "$status" in
            delivered|accepted) ;;
            unconfirmed) unconfirmed=$((unconfirmed + 1)) ;;
            *) wrong="msg said $status" ;;
        esac
        [ "$status" = delivered ] && [ "$n" -lt 1 ] && wrong="msg said delivered, the model never got it"
        case "$logged" in
            "delivered "*) [ "$n" -ge 1 ] || wrong="logged delivered, the model never got it" ;;
            *) [ "$n" -ge 1 ] && wrong="logged $logged, yet the model got it" ;;
        esac
        [ -n "$wrong" ] && false=$((false + 1))
        if [ "$n" != 1 ] || [ -n "$wrong" ]; then
            bad "$NS_AGENT ${NS_KIND[$i]} \"${NS_TEXT[$i]}\": the model got it $n times; msg said: $said; logged: $logged${wrong:+ ($wrong)}"
        fi
        echo "    ${NS_KIND[$i]}: $said -> $logged, model $n"
    done
    ls "$NS_CANARY" 2>/dev/null | grep -q "nd$tag" && answered=1
    echo "  native $NS_AGENT: ${#NS_TEXT[@]} sends, $once once, $false false outcomes, $answered dialogs answered ($unconfirmed unconfirmed at the send)"
    [ "${#NS_TEXT[@]}" = 20 ] && [ "$once" = 20 ] && [ "$false" = 0 ] && [ "$answered" = 0 ] \
        && ok "native $NS_AGENT: 20 sends, each reached the model once, 0 false outcomes, no dialog answered" \
        || bad "native $NS_AGENT: ${#NS_TEXT[@]} sends, $once once, $false false outcomes, $answered dialogs answered"
}

# Claude Code through its socket: the 20 sends to the kit's agent in
# $PANE (manual permission mode, so that a tool asks), then a session that
# bypasses permissions without crossSessionInbound = "accept".
claude_native_check() {
    cswarm() { SWARM_DELIVERY_NATIVE=auto "$SWARM" --root "$PROJECT" "$@"; }
    NS_SWARM=cswarm NS_AGENT=claude NS_PROJECT="$PROJECT" NS_PANE="$PANE"
    NS_TMUX="$REALAGENTS_TMUX" NS_LOG="$WORK/mock-claude.jsonl" NS_CANARY="$WORK/canary-claude"
    native_sends
    # The second idle send: the session's first turn starts its transcript,
    # which under load took longer than the send waits (unconfirmed, then
    # logged delivered by the watcher, on 2026-12-02).
    [ "${NS_SAID[1]}" = "delivered socket transcript exit=0" ] \
        && ok "idle: through the socket, delivered, confirmed by the transcript" \
        || bad "idle native send: ${NS_SAID[1]}"
    [ "${NS_SAID[8]}" = "accepted socket - exit=0" ] \
        && ok "busy: accepted by the socket, exit 0" || bad "busy native send: ${NS_SAID[8]}"
    grep -q '"event": *"message_taken"' "$PROJECT/.swarm/feed.jsonl" \
        && ok "the watcher saw accepted messages taken" || bad "no message_taken in the feed"
    # Those the tool turn took in (its transcript's word), each counted
    # above as delivered and reaching the model once.
    local absorbed
    absorbed="$(cat "$WORK"/home-claude/.claude/projects/*/*.jsonl 2>/dev/null | grep -c '"reason":"absorbed_mid_turn"' || true)"
    echo "  claude took $absorbed of the busy sends into the running turn"
    claude_held_check
}

# A Claude Code session bypassing permissions (as root it needs
# IS_SANDBOX=1) with no crossSessionInbound setting holds each peer
# message: its transcript's record of the hold makes swarm report
# awaiting_approval, its screen reads as a dialog (Deny is highlighted: a
# typed message waits instead of pressing it), and once the person
# approves, the model gets it once and the watcher logs it delivered.
claude_held_check() {
    local home="$WORK/home-held" cmd pane id out said msg_id state n deadline
    local text="held for the person $RANDOM"
    cmd="$(REALAGENTS_CLAUDE_MODE= "$KIT/realagents.sh" start claude "$home" "$PROJECT")"
    mkdir -p "$home/.claude"
    echo '{"skipDangerousModePermissionPrompt": true}' > "$home/.claude/settings.json"
    cmd="${cmd/env -i /env -i IS_SANDBOX=1 } --dangerously-skip-permissions"
    pane="$(tm new-window -d -P -F '#{pane_id}' -t t -c "$PROJECT" "$cmd")"
    if ! "$KIT/realagents.sh" wait-prompt "$pane" 90 >/dev/null; then
        bad "bypass: Claude Code did not reach its prompt"
        tm kill-pane -t "$pane" 2>/dev/null || true
        return
    fi
    "$SWARM" --root "$PROJECT" discover >/dev/null
    id="$("$SWARM" --root "$PROJECT" agents --json | python3 -c '
import json, sys
print(next((a["id"] for a in json.load(sys.stdin) if a.get("tmux_pane_id") == sys.argv[1]), "-"))' "$pane")"
    out="$(SWARM_DELIVERY_NATIVE=auto "$SWARM" --root "$PROJECT" msg "$id" INFO --from operator --json -- "$text" 2>&1 || true)"
    read -r msg_id said < <(printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
o = v["outcomes"][sys.argv[1]]
print(v["msg_id"], o.get("status"), o.get("via"))' "$id" 2>/dev/null || echo "- ? ?")
    [ "$said" = "awaiting_approval socket" ] && ok "bypass: $id holds the message: awaiting_approval, from its transcript's record" \
        || bad "bypass: msg said $said ($out)"
    state="$("$SWARM" --root "$PROJECT" agents --json | python3 -c '
import json, sys
print(next((a["state"] for a in json.load(sys.stdin) if a["id"] == sys.argv[1]), "-"))' "$id")"
    [ "$state" = dialog ] && ok "bypass: swarm reads the held-message screen as a dialog" || bad "bypass: the held-message screen reads as $state"
    out="$("$SWARM" --root "$PROJECT" msg "$id" INFO --from operator -- "typed behind the hold" 2>&1 || true)"
    echo "$out" | grep -q "HELD" && ok "bypass: a typed message waits behind the held-message dialog" || bad "bypass: typed: $out"
    tm capture-pane -p -t "$pane" | grep -q "Held message from another session" \
        && ok "bypass: the dialog is still open (nothing pressed Deny)" || bad "bypass: the held-message dialog is gone"
    # The person approves: Down to "Deliver this message to Claude", Enter.
    SWARM_DELIVERY_NATIVE=auto "$SWARM" --root "$PROJECT" watch >"$WORK/held-watch.log" 2>&1 &
    WATCH_PID=$!
    tm send-keys -t "$pane" Down
    sleep 0.3
    tm send-keys -t "$pane" Enter
    deadline=$((SECONDS + 60))
    until [ "$(native_counts claude "$WORK/mock-claude.jsonl" "$text")" -ge 1 ] || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
    n="$(native_counts claude "$WORK/mock-claude.jsonl" "$text")"
    [ "$n" = 1 ] && ok "bypass: approved, the model got it once" || bad "bypass: approved, the model got it $n times"
    deadline=$((SECONDS + 30))
    until [ "$(native_logged "$PROJECT" "$msg_id" "$id")" = "delivered transcript" ] || [ $SECONDS -ge $deadline ]; do sleep 1; done
    [ "$(native_logged "$PROJECT" "$msg_id" "$id")" = "delivered transcript" ] \
        && ok "bypass: the watcher logged it delivered, confirmed by the transcript" \
        || bad "bypass: logged $(native_logged "$PROJECT" "$msg_id" "$id")"
    stop_watch
    "$KIT/realagents.sh" stop "$pane" >/dev/null 2>&1 || true
    tm kill-pane -t "$pane" 2>/dev/null || true
    "$SWARM" --root "$PROJECT" discover >/dev/null
}

# Issue 32: `record --board N` on rendered table clips (`boardscribe-lab render table --clip`),
# each board's record against its truth: games exact, moves wrong or extra, and whether moves
# made while a hand was over ANOTHER board were recorded (and how late after the hand left)
# against moves made while every other board was clear. Needs python-chess; run from the
# repository root after `cargo build --workspace`:
#   python3 tests/tools/table_clips.py BOARDS row|grid FIRST_SEED LAST_SEED [PLIES]
# Clips are rendered once into out/table-clips/.
import json, subprocess, sys, os, statistics
import chess, chess.pgn, io
B = './target/debug/boardscribe'; L = './target/debug/boardscribe-lab'
boards, layout, s0, s1 = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
plies = int(sys.argv[5]) if len(sys.argv) > 5 else 6
root = 'out/table-clips'
def sans(text):
    g = chess.pgn.read_game(io.StringIO(text)); b = g.board(); out = []
    for m in g.mainline_moves(): out.append(b.san(m)); b.push(m)
    return out
tot = exact = invented = 0
busy_delays, clear_delays, busy_missed = [], [], 0
for s in range(s0, s1 + 1):
    d = f'{root}/{boards}{layout}-p{plies}-s{s}'
    if not os.path.exists(d + '/truth.json'):
        subprocess.run([L, 'render', 'table', '--clip', '--boards', str(boards), '--layout', layout,
                        '--plies', str(plies), '--seed', str(s), '--out', d], check=True, capture_output=True)
    truths = [json.load(open(f'{d}/board_{n}.json')) for n in range(1, boards + 1)]
    for n in range(1, boards + 1):
        tot += 1
        out = f'{d}/rec{n}.pgn'
        p = subprocess.run([B, 'record', '--input', d + '/table.mp4', '--board', str(n), '--pgn', out,
                            '--events', '--force'], capture_output=True, text=True)
        truth = sans(open(f'{d}/board_{n}.pgn').read())
        got = sans(open(out).read()) if os.path.exists(out) else []
        ok = got == truth
        exact += ok
        extra = [m for m in got if m not in truth] if not ok else []
        invented += len(got) - sum(1 for a, b in zip(got, truth) if a == b) if not ok else 0
        times = {}
        for line in p.stdout.splitlines():
            try: e = json.loads(line)
            except Exception: continue
            if e.get('type') == 'move': times[e['ply']] = e['time']
        t = truths[n - 1]
        for v in t['visits']:
            end = v['start_s'] + v['move_s']
            # another board's hands over some board (not this one) within 3 s after this move's hand left
            others = any(
                (f['hand_occludes'] and end - 0.5 <= f['time_s'] <= end + 3.0)
                for k, o in enumerate(truths) if k != n - 1 for f in o['frames'])
            ply = v['transition'] + 1
            rec = times.get(ply)
            if rec is None:
                if others: busy_missed += 1
                continue
            (busy_delays if others else clear_delays).append(rec - end)
        print(f'seed {s} board {n}: {"exact" if ok else "DIFFERS"} {len(got)}/{len(truth)}'
              + ('' if ok else f' got {got} truth {truth} | {p.stderr.strip().splitlines()[-1:]}'), flush=True)
med = lambda v: f'{statistics.median(v):.2f}' if v else '-'
print(f'== {boards} boards ({layout}), seeds {s0}-{s1}, {plies} plies: {exact}/{tot} exact, moves recorded wrong or extra {invented}; '
      f'moves made while another board had a hand over it: {len(busy_delays)} recorded (median delay {med(busy_delays)} s, max {max(busy_delays, default=0):.2f}), {busy_missed} missed; '
      f'moves made with every other board clear: {len(clear_delays)} (median delay {med(clear_delays)} s, max {max(clear_delays, default=0):.2f})')

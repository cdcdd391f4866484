# Issue 32: `locate --all` on `boardscribe-lab render table` photos (1920x1080), each board
# within 0.3 cell (worst corner, quarter turns allowed) of the photo's truth.json, and the
# lattices found on no board (extra). Run from the repository root after cargo build:
#   python3 tests/tools/table_photos.py c2|c4|m2|m4 FIRST_SEED LAST_SEED [HANDS]
# (c: chess only, m: mixed games; 2 boards in a row, 4 in two rows). Photos go to out/table-photos/.
import json, subprocess, sys, math, os
B = './target/debug/boardscribe'
L = './target/debug/boardscribe-lab'
def cells(grid):
    g, pts = (grid.split(':')[0], ':points' in grid)
    r, c = map(int, g.split('x'))
    return (r - 1, c - 1) if pts else (r, c)
def err(grid, f, t):
    r, c = cells(grid)
    side = lambda q, i, j: math.dist(q[i], q[j])
    cw = (side(t,0,1)+side(t,3,2))/2/c; ch = (side(t,1,2)+side(t,0,3))/2/r
    cell = min(cw, ch)
    best = 1e9
    for k in range(4):
        g = f[k:]+f[:k]
        best = min(best, max(math.dist(a,b) for a,b in zip(g,t))/cell)
    return best
def run(boards, layout, games, grids, seeds, hands, tag):
    tot = ok = extra = 0
    for s in seeds:
        d = f'out/table-photos/{tag}-s{s}'
        if not os.path.exists(d+'/truth.json'):
            subprocess.run([L,'render','table','--boards',str(boards),'--layout',layout,'--games',games,'--seed',str(s),'--hands',str(hands),'--out',d],check=True,capture_output=True)
        truth = json.load(open(d+'/truth.json'))['boards']
        args = [B,'locate','--all','--json']
        for g in grids: args += ['--grid', g]
        p = subprocess.run(args+[d+'/table.jpg'],capture_output=True,text=True)
        found = json.loads(p.stdout)['boards'] if p.stdout.strip() else []
        errs = []
        used = set()
        for tb in truth:
            e = min([(err(tb['grid'], fb['corners'], tb['corners']), i) for i, fb in enumerate(found)] or [(99,None)])
            errs.append(e[0]); 
            if e[0] < 0.3: used.add(e[1])
        n_ok = sum(e < 0.3 for e in errs); tot += len(truth); ok += n_ok; extra += len(found) - len(used)
        order = [e for e in errs]
        print(tag, s, f'{n_ok}/{len(truth)}', 'found', len(found), 'errs', ' '.join(f'{e:.2f}' for e in errs), flush=True)
    print(f'== {tag}: {ok}/{tot} within 0.3, extra {extra}', flush=True)
cfg = sys.argv[1]
seeds = range(int(sys.argv[2]), int(sys.argv[3])+1)
hands = float(sys.argv[4]) if len(sys.argv) > 4 else 0
if cfg == 'c2': run(2,'row','chess',['8x8'],seeds,hands,f'c2h{hands}')
if cfg == 'c4': run(4,'grid','chess',['8x8'],seeds,hands,f'c4h{hands}')
if cfg == 'm2': run(2,'row','chess,go19',['8x8','19x19:points'],seeds,hands,f'm2h{hands}')
if cfg == 'm4': run(4,'grid','chess,draughts,go19,go9',['8x8','19x19:points','9x9:points'],seeds,hands,f'm4h{hands}')

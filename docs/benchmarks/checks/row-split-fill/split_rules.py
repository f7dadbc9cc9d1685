# Run from this folder: the row_split settings of run 1 against split_for's rule.
import csv, gzip, math, collections, sys
t=collections.defaultdict(dict); shp={}
for n in ['32','16','8','4']:
    for r in csv.DictReader(gzip.open(f'1-nnz-per-group-{n}.csv.gz', 'rt')):
        if r['status']!='ok': continue
        k=(r['matrix'],int(r['k'])); v=r['variant']
        m=int(r['m']); shp[r['matrix']]=(m,int(r['nnz'])/max(m,1))
        if v=='cuda.spmm.row_split': t[k]['rs'+n]=float(r['median_ms'])
        elif n=='32': t[k][v]=float(r['median_ms'])
SMS=132
def gmap(K): return (8 if K<=32 else 16 if K<=64 else 32)
def split_per(mean,K,per):
    G=gmap(K); groups=256//G; s=1
    while s<groups and 2*s*per<=mean: s*=2
    return s
def rule(mean,rows,K,per_min,target,floor_old=True):
    G=gmap(K); groups=256//G; tiles=max(1,(K+127)//128); s=1
    while s<groups and 2*s*per_min<=mean and rows*2*s*G*tiles<=target: s*=2
    if floor_old: s=max(s,split_per(mean,K,32))
    return s
def evaluate(f):
    logs=[];worst=9;miss=0;n=0;vs_best=[]
    for k,d in t.items():
        if not all(('rs'+p) in d for p in ['32','16','8','4']): continue
        m,mean=shp[k[0]]; K=k[1]
        s=f(mean,m,K)
        cand=[p for p in ['32','16','8','4'] if split_per(mean,K,int(p))==s]
        if not cand: return None
        tm=d['rs'+cand[0]]; best=min(d['rs'+p] for p in ['32','16','8','4'])
        logs.append(math.log(d['rs32']/tm)); worst=min(worst,d['rs32']/tm); n+=1
        vs_best.append(best/tm); miss+= best/tm<0.9
    return math.exp(sum(logs)/n), worst, n, math.exp(sum(map(math.log,vs_best))/n), min(vs_best), miss
for name,f in [('per16',lambda me,m,K: split_per(me,K,16)),('per8',lambda me,m,K: split_per(me,K,8)),('per4',lambda me,m,K: split_per(me,K,4))]+\
  [(f'per{p} cap{c}K floor{fl}',(lambda p,c,fl: (lambda me,m,K: rule(me,m,K,p,c*1000,fl)))(p,c,fl)) for p in [4,8] for c in [66,135,270,540] for fl in [True,False]]:
    r=evaluate(f)
    if r: print(f"{name:28s} vs old {r[0]:.3f} worst {r[1]:.2f}  n={r[2]}  vs best-of-4 {r[3]:.3f} worst {r[4]:.2f} misses(>10%) {r[5]}")
    else: print(name,"unmeasured splits")

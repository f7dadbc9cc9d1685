# Run from this folder: auto's picks in run 2 against row_split rules (features.csv: fk-bench
# --explain-auto --csv on the same matrices).
import csv, gzip, math, collections, itertools
feat={}
for r in csv.DictReader(open('features.csv')):
    feat[r['matrix']]=(int(r['rows']),float(r['row_mean']),float(r['row_cv']),int(r['row_max']))
d=collections.defaultdict(dict)
for r in csv.DictReader(gzip.open('2-sweep.csv.gz', 'rt')):
    if r['status']!='ok' or r['op']!='spmm': continue
    k=(r['matrix'],int(r['k'])); d[k][r['variant']]=float(r['median_ms'])
    if r['variant']=='auto': d[k]['pick']=r['chosen']
def evaluate(rule, show=False):
    res=collections.defaultdict(list)
    for k,x in d.items():
        if k[0] not in feat: continue
        rows,mean,cv,mx=feat[k[0]]; K=k[1]
        pick='cuda.spmm.row_split' if rule(rows,mean,cv,K) else x['pick']
        t=x[pick]; best=min(v for n,v in x.items() if n not in('auto','pick'))
        res[K].append((x['cuda.spmm.cusparse']/t, best/t, k[0], pick))
    tot=[];within=0;n=0;worst=9
    for K in sorted(res):
        L=res[K]; g=math.exp(sum(math.log(a) for a,_,_,_ in L)/len(L)); w=sum(b>=1/1.1 for _,b,_,_ in L)
        if show: print(f"  K={K} geo {g:.3f} within {w}/{len(L)} slowest {min(a for a,_,_,_ in L):.2f}")
        tot+= [a for a,_,_,_ in L]; within+=w; n+=len(L)
    return math.exp(sum(map(math.log,tot))/n), within, n
print("current", evaluate(lambda r,m,c,K: False, True))
best=None
for R,M,C,KM in itertools.product([1024,2048,4096],[32,40,48,64,100],[0.5,1.0,2.0],[64,128,256,512]):
    g,w,n=evaluate(lambda r,m,c,K: r<=R and m>=M and c<=C and 32<=K<=KM)
    if best is None or (g,w)>(best[0],best[1]): best=(g,w,n,R,M,C,KM)
    if KM in (128,256) and C==1.0 and M in (40,48,64) : print(R,M,C,KM,round(g,3),w)
print("best",best)
print("=== chosen")
rule=lambda r,m,c,K: r<=1024 and m>=40 and c<=1.0 and 32<=K<=256
print(evaluate(rule, True))
for k,x in sorted(d.items(), key=lambda a:(a[0][1],a[0][0])):
    if k[0] not in feat: continue
    rows,mean,cv,mx=feat[k[0]]; K=k[1]
    if not rule(rows,mean,cv,K): continue
    t=x['cuda.spmm.row_split']; best=min((v,n) for n,v in x.items() if n not in('auto','pick'))
    if best[0]/t<0.9 or x['cuda.spmm.cusparse']/t<1.0:
        print(f"  loss K={K} {k[0][-40:]:40s} rows {rows} mean {mean:.0f} cv {cv:.2f} rs {t*1000:.1f} best {best[1][10:]} {best[0]*1000:.1f} cusp {x['cuda.spmm.cusparse']*1000:.1f} old pick {x['pick'][10:]} {x[x['pick']]*1000:.1f}")
print("=== variants")
for name,rule in [
  ("A K<=128", lambda r,m,c,K: r<=1024 and m>=40 and c<=1.0 and 32<=K<=128),
  ("B +K256 small", lambda r,m,c,K: r<=1024 and m>=40 and c<=1.0 and (32<=K<=128 or (K==256 and r<=256 and m<=700))),
  ("C K32 mean100", lambda r,m,c,K: r<=1024 and c<=1.0 and ((K==32 and m>=100) or (64<=K<=128 and m>=40) or (K==256 and r<=256 and m<=700))),
  ("D K32 mean64", lambda r,m,c,K: r<=1024 and c<=1.0 and ((K==32 and m>=64) or (64<=K<=128 and m>=40) or (K==256 and r<=256 and m<=700))),
  ("E rows2048", lambda r,m,c,K: r<=2048 and c<=1.0 and ((K==32 and m>=100) or (64<=K<=128 and m>=40) or (K==256 and r<=256 and m<=700))),
  ]:
    print(name, evaluate(rule, name.startswith("C")))

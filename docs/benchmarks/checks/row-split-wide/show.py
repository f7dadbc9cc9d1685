#!/usr/bin/env python3
"""Each S·B problem of a run.sh set: row_split over cuSPARSE, auto pick, best. show.py SET.csv.gz"""
import csv,gzip,collections,sys
t=collections.defaultdict(dict); info={}; pick={}
for r in csv.DictReader(gzip.open(sys.argv[1],'rt')):
    if r['status']!='ok': continue
    key=(r['matrix'],int(r['k'])); v=r['variant'].replace('cuda.spmm.','')
    t[key][v]=float(r['median_ms'])*1e3; info[key]=(int(r['m']),int(r['n']),int(r['nnz']))
    if v=='auto': pick[key]=r['chosen'].replace('cuda.spmm.','')
rows=[]
for key,v in t.items():
    m,n,nnz=info[key]
    others={x:y for x,y in v.items() if x!='auto'}
    best=min(others,key=others.get)
    rs=v['cusparse']/v['row_split']
    rows.append((m, nnz/m, key, rs, pick.get(key), best, v['auto']/others[best]))
rows.sort()
for m,mean,key,rs,p,best,ab in rows:
    if m>4096: continue
    print(f"{key[0][-46:]:46} K={key[1]:3} rows {m:5} mean {mean:6.0f} row_split/cus {rs:4.2f} auto={p:9} best={best:9} auto/best {ab:4.2f}")

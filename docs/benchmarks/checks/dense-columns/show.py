#!/usr/bin/env python3
"""Whole matrix against light part (best sparse kernel) + heavy part (SGEMM). show.py CSV.gz"""
import csv,gzip,collections,sys
t=collections.defaultdict(dict)
for r in csv.DictReader(gzip.open(sys.argv[1],'rt')):
    if r['status']!='ok': continue
    t[(r['matrix'],int(r['k']))][r['variant'].replace('cuda.spmm.','')]=float(r['median_ms'])*1e3
for base,ths in (('nips',('0.2','0.1')),('nytimes',('0.3','0.2'))):
    for k in (32,64,128,256,512):
        if (base,k) not in t: continue
        full=t[(base,k)]; fa=full['auto']; fb=min(v for x,v in full.items() if x!='auto')
        line=f"{base:8} K={k:3} whole: auto {fa:8.1f} best {fb:8.1f} us |"
        for th in ths:
            l=t.get((f'{base}-light-{th}',k)); h=t.get((f'{base}-heavy-{th}',k))
            if not l or not h: line+=f" t={th}: missing"; continue
            lb=min(v for x,v in l.items() if x!='auto'); hd=h['dense']
            line+=f" t={th}: light best {lb:8.1f} + heavy GEMM {hd:7.1f} = {lb+hd:8.1f} ({fb/(lb+hd):.2f}x whole best)"
        print(line)

#!/usr/bin/env python3
"""Gain of auto_*_width's padding per problem: the measured time of what an fk-bench build without
padding picks at K (NOPAD, explain-auto) against `auto` measured with padding, where a build with
the final rule (NEW) pads (its explain-auto says "at K=").
usage: pad_gain.py NEW NOPAD FOLDER...   (FOLDER holds spmm.csv and sddmm.csv of one run)"""
import csv,collections,subprocess,os,sys,math
def src(m):
  if ':' in m: return ['--gen',m]
  d='/work/shared/data/'
  return {'docword.kos':['--input',d+'uci-kos/docword.kos.txt.gz'],'u.data':['--input',d+'movielens-100k/u.data']}.get(m,['--preset',m])
NEW, NOPAD = sys.argv[1], sys.argv[2]
def picks(binary,op,form,m,ks):
  out='/tmp/pad_gain_picks.csv'
  if os.path.exists(out): os.remove(out)
  a=[binary,op]+src(m)+['--k',','.join(map(str,sorted(ks))),'--explain-auto','--csv',out]
  if op=='spmm': a+=['--op',form]
  txt=subprocess.run(a,capture_output=True,text=True,check=True).stdout
  padded={int(l.split('K=')[1].split(':')[0]) for l in txt.splitlines() if ' at K=' in l}
  return {int(r['k']):r['auto_pick'] for r in csv.DictReader(open(out)) if r['form']==form or op=='sddmm'}, padded
for folder in sys.argv[3:]:
  res=[]
  for f,op in (('spmm.csv','spmm'),('sddmm.csv','sddmm')):
    T=collections.defaultdict(dict)
    for r in csv.DictReader(open(folder+'/'+f)):
      if r['status']=='ok': T[(r['form'],r['matrix'],int(r['k']))][r['variant']]=float(r['median_ms'])*1000
    mats=collections.defaultdict(set)
    for form,m,k in T: mats[(form,m)].add(k)
    for (form,m),ks in mats.items():
      if op=='spmm' and form!='t': continue
      pn,_=picks(NOPAD,op,form,m,ks); _,padded=picks(NEW,op,form,m,ks)
      for k in ks:
        if k%4==0: continue
        t=T[(form,m,k)]; un=t[pn[k]]
        res.append((op,m[:24],k,un,t['auto'] if k in padded else un, k in padded))
  for x in sorted(res): print('%s %-24s K=%3d unpadded %.1f final %.1f padded=%s gain %.2f'%(x[0],x[1],x[2],x[3],x[4],x[5],x[3]/x[4]))
  g=[x[3]/x[4] for x in res if x[5]]
  print(folder,'padded problems %d of %d; gain geomean %.3f min %.2f max %.2f'%(len(g),len(res),math.exp(sum(map(math.log,g))/len(g)),min(g),max(g)))

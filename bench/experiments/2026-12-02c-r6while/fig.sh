#!/bin/bash
# fig.sh DIR: ptxas registers, SASS instruction / LDG counts, with and without the main loop's pragma
PTXAS=${PTXAS:-/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas}; ND=${ND:-nvdisasm}
cd $1
for p in $(ls *.ptx | grep -v _np.ptx); do f=${p%.ptx}
  r=$($PTXAS -arch=sm_90 -v $p -o $f.cubin 2>&1 | grep -o "Used [0-9]* registers" | tail -1 | grep -o "[0-9]*"); $ND -c $f.cubin 2>/dev/null > $f.sass
  line="$f regs=$r sass=$(grep -c '/\*[0-9a-f]*\*/' $f.sass) LDG=$(grep -c LDG $f.sass) ptx_ld=$(grep -c ld.global $p) pragma=$(grep -c nounroll $p) mul64=$(grep -c 'mul.lo.s64' $p)"
  if grep -q nounroll $p; then python3 -c "
s=open('$p').read();i=s.find('.pragma \"nounroll\";');open('${f}_np.ptx','w').write(s[:i]+s[i+len('.pragma \"nounroll\";'):])"
  r=$($PTXAS -arch=sm_90 -v ${f}_np.ptx -o ${f}_np.cubin 2>&1 | grep -o "Used [0-9]* registers" | tail -1| grep -o "[0-9]*"); $ND -c ${f}_np.cubin 2>/dev/null > ${f}_np.sass
  line="$line | first-pragma-removed: regs=$r sass=$(grep -c '/\*[0-9a-f]*\*/' ${f}_np.sass) LDG=$(grep -c LDG ${f}_np.sass)"; fi
  echo "$line"
done

#!/bin/sh
# cuda_lib.sh NVCC - prints the folder that this nvcc links CUDA's
# libraries (cudart, cuBLAS, cuFFT) from. nvcc may be a wrapper script
# in another folder (/usr/local/bin/nvcc on some machines), and lib64
# is missing from some toolkits, so the folder is asked of nvcc itself:
# its --dryrun of a link prints the -L folders that nvcc.profile sets.
# Used by common/cuda/Makefile and tests/run.sh.
folders=$("$1" --dryrun -o cuda_lib_probe cuda_lib_probe.o 2>&1 |
          sed -n 's/^#\$ LIBRARIES=//p' | tr -d '"' | tr ' ' '\n' |
          sed -n 's/^-L//p')
for dir in $folders; do
    if [ -f "$dir/libcudart_static.a" ]; then
        readlink -f "$dir"
        exit 0
    fi
done
echo "cuda_lib.sh: $1 --dryrun names no folder with libcudart_static.a" >&2
exit 1

# lessons/04_copy/lesson.mk - lesson 04's nine kernels, each for sm_80 and sm_90, are compiled
# on all CPUs (-split-compile, see the Makefile; the same machine code, byte for byte).
NVCCFLAGS_04_copy := $(NVCCFLAGS) $(SPLIT_COMPILE)

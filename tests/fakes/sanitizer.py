"""compute-sanitizer reports written from the documented format (no GPU on the CI host)."""

MEMCHECK = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at saxpy(float, const float *, float *, int)+0x70 in main.cu:5
=========     by thread (256,0,0) in block (0,0,0)
=========     Address 0x7f5e0fe00400 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f2d3a] in libcuda.so.1
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaMemcpy.
=========
========= ERROR SUMMARY: 2 errors
"""

RACECHECK = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at tile(float *)+0x1a0 in main.cu:12
=========     and Read access at tile(float *)+0x1c0 in main.cu:14 [4 hazards]
=========
========= Warning: Race reported between Write access at tile(float *)+0x200 in main.cu:20
=========     and Write access at tile(float *)+0x200 in main.cu:20 [32 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
"""

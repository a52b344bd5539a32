/* gpu_probe.c - does this machine have a GPU the course can use? Used by tests/grade/grade.sh
 * before the GPU part of a grade.
 * Prints one line and exits 0 ("NVIDIA H200, sm_90, 132 SMs") or 3 (why not: no driver, no
 * device, compute capability below 8.0), like the harness. C11, links the CUDA runtime only.
 */
#include <stdio.h>
#include <cuda_runtime_api.h>

int main(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("no CUDA device is available (%s)\n",
               e == cudaSuccess                   ? "0 devices"
               : e == cudaErrorInsufficientDriver ? "no NVIDIA driver, or one older than this "
                                                    "CUDA runtime"
               : e == cudaErrorNoDevice           ? "no NVIDIA GPU found"
                                                  : cudaGetErrorString(e));
        return 3;
    }
    struct cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
        printf("cannot query device 0 (%s)\n", cudaGetErrorString(e));
        return 3;
    }
    if (prop.major < 8) {
        printf("device 0 (%s) has compute capability %d.%d; the course needs 8.0 or newer\n",
               prop.name, prop.major, prop.minor);
        return 3;
    }
    printf("%s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    return 0;
}

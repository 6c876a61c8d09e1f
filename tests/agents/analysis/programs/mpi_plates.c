/* A 2-D heat plate in one block of rows whose width is a local holding its value (`int nx =
   240;`, the subscripts read `j * ( 240 ) + i`, the column loop `i < nx - 1`), sweeps swapping
   two pointers, and a plate's checksum. Usage: mpi_plates */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int nx = 240, ny = 180, steps = 30;
    double *u = calloc(nx * ny, sizeof *u), *un = calloc(nx * ny, sizeof *un);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) u[j * nx + i] = (i == nx / 2 && j == ny / 2) ? 1000.0 : 0.0;
    for (int t = 0; t < steps; t++) {
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++)
                un[j * nx + i] = u[j * nx + i] + 0.125 * (u[j * nx + i - 1] + u[j * nx + i + 1] +
                                                          u[(j - 1) * nx + i] +
                                                          u[(j + 1) * nx + i] - 4 * u[j * nx + i]);
        double *swap = u;
        u = un;
        un = swap;
    }
    long checksum = 0;
    for (int k = 0; k < nx * ny; k++) checksum += (long)(u[k] * 1e6) % 1000;
    printf("%ld\n", checksum);
    for (int j = ny / 2 - 3; j <= ny / 2 + 3; j++) printf("%.9f\n", u[j * nx + nx / 2 + 1]);
    free(u);
    free(un);
    return 0;
}

#include <stdio.h>
#include <omp.h>

#define N 64
float src[N], mid[N];

/* Two distribute loops in one teams region: distribute has no barrier, and the second loop runs
   backwards, so a team may overwrite src[i] while another team still reads it in the first. */
int main(void) {
    for (int i = 0; i < N; i++) src[i] = (float)i;
    #pragma omp target teams num_teams(4) map(tofrom: src[0:N], mid[0:N])
    {
        #pragma omp distribute
        for (int i = 0; i < N; i++)
            mid[i] = src[i] * 2.0f;
        #pragma omp distribute
        for (int i = N - 1; i >= 0; i--)
            src[i] = mid[N - 1 - i] + 1.0f;
    }
    printf("%.1f\n", src[0]);
    return 0;
}

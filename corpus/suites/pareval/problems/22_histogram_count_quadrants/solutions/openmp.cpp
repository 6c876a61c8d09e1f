#include <omp.h>

struct Point {
   double x, y;
};

/* Count the number of cartesian points in each quadrant. The vector points contains a list of `Point` objects.
   Store the counts in `bins`.
   Use OpenMP to count in parallel.
   Example:

   input: [{x=1.5, y=0.1}, {x=-3, y=1.1}, {x=5, y=9}, {x=1.5, y=-1}, {x=3, y=-7}, {x=0.1, y=2}]
   output: [3, 1, 0, 2]
*/
void countQuadrants(std::vector<Point> const& points, std::array<size_t, 4> &bins) {
  size_t q0 = 0, q1 = 0, q2 = 0, q3 = 0;
  #pragma omp parallel for reduction(+:q0, q1, q2, q3)
  for (size_t i = 0; i < points.size(); ++i) {
    Point const& p = points[i];
    if (p.x > 0 && p.y > 0) {
      q0++;
    } else if (p.x < 0 && p.y > 0) {
      q1++;
    } else if (p.x < 0 && p.y < 0) {
      q2++;
    } else {
      q3++;
    }
  }
  bins[0] = q0;
  bins[1] = q1;
  bins[2] = q2;
  bins[3] = q3;
}

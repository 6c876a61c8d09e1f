from sandbox.spec import Target
from sandbox.toolchains import toolchain_for


def test_openmp_needs_a_construct_that_creates_parallelism():
    check = toolchain_for(Target.OPENMP).source_check
    assert not check("int main(void) { return 0; }").ok
    assert not check("// #pragma omp parallel for\nint main(void) { return 0; }").ok
    lonely = check("int main(void) {\n#pragma omp critical\n{ }\nreturn 0; }")
    assert not lonely.ok
    good = check(
        "void f(int n, double *a) {\n  #pragma omp parallel for reduction(+:s)\n  for(;;);\n}"
    )
    assert good.ok
    assert good.found == ["#pragma omp parallel for reduction(+:s)"]


def test_mpi_needs_communication():
    check = toolchain_for(Target.MPI).source_check
    init_only = check("MPI_Init(&c, &v); MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Finalize();")
    assert not init_only.ok
    assert "no MPI communication" in init_only.message
    good = check("MPI_Init(0, 0); MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);")
    assert good.ok
    assert good.found == ["MPI_Allreduce"]
    assert not check('printf("MPI_Send(");').ok  # strings do not count


def test_cuda_needs_a_kernel():
    check = toolchain_for(Target.CUDA).source_check
    assert not check("int main() { return 0; }").ok
    good = check(
        "__global__ void saxpy(float a, float *x) { }\nint main() { saxpy<<<1, 1>>>(1, 0); }"
    )
    assert good.ok
    assert good.found == ["__global__ saxpy", "kernel launch"]
    templated = check("template <typename T>\n__global__ void __launch_bounds__(256) k(T *p) { }")
    assert templated.ok


def test_serial_accepts_anything():
    assert toolchain_for(Target.SERIAL).source_check("int main(void) { return 0; }").ok

# bench/floor_lib.sh, sourced by the GPU benches: builds bench/cupti_floor.c, the floor's CUDA
# injection library, as $1/libfloor.so (CUDA_HOME: the toolkit, /usr/local/cuda by default).
build_floor() {
	local cuda=${CUDA_HOME:-/usr/local/cuda}
	cc -std=c17 -O2 -fPIC -shared -fvisibility=hidden -I"$cuda/include" bench/cupti_floor.c \
		-L"$cuda/lib64" -lcupti -Wl,--no-undefined -Wl,-rpath,"$cuda/lib64" -o "$1/libfloor.so"
}

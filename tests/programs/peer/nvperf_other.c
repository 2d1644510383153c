/* nvperf_other.c: built as other-nvperf/libnvperf_host.so (soname libnvperf_host.so), the
 * copy of another release that LD_LIBRARY_PATH offers first in tests/cases/kmetrics.sh. It
 * only has to be a loadable library of that name. */
int gs_other_nvperf(void);
int gs_other_nvperf(void)
{
	return 1;
}

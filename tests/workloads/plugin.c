/* plugin.c: the library dlopen.c loads at run time. */
volatile unsigned long plugin_sink;

__attribute__((noinline)) static unsigned long plugin_inner(unsigned long x)
{
	for (int i = 0; i < 3000; i++)
		x = x * 6364136223846793005UL + 1;
	return x;
}

unsigned long plugin_work(unsigned long x)
{
	plugin_sink += plugin_inner(x);
	return plugin_sink;
}

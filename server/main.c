/*
 * main.c - the seam executable.
 */
#include "seam_server.h"

int main(int argc, char **argv)
{
    return srv_main(argc, argv);
}

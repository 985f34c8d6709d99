"""connection.dropped: a connection's socket between requests, told without a round trip (real
sockets; the job's connection against a real server: tests/integration/test_store_edges.py)."""

import os
import resource
import socket

import pytest

from errorcount.store.connection import dropped


def test_an_idle_socket_with_nothing_to_read_is_not_dropped():
    here, server = socket.socketpair()
    with here, server:
        assert not dropped(here)  # a server that hangs looks the same: its answer is waited for once, later


def test_a_socket_the_server_closed_or_wrote_to_unasked_is_dropped():
    here, server = socket.socketpair()
    with here:
        server.close()  # the end of the stream: its idle limit, a KILL, a restart
        assert dropped(here)
    here, server = socket.socketpair()
    with here, server:
        server.sendall(b"\x00")  # a goodbye packet (MySQL 8 says why before it closes an idle connection)
        assert dropped(here)


def test_a_closed_connection_is_dropped():
    assert dropped(None)  # PyMySQL's socket once it closed the connection itself (a lost or timed-out reply)


def test_a_socket_closed_here_is_dropped():
    here, server = socket.socketpair()
    with server:
        here.close()  # its descriptor is -1 now
        assert dropped(here)


def test_a_descriptor_past_fd_setsize_is_checked_too():
    """A driver that runs for months may hold more than 1024 descriptors; select() cannot watch those."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this process may open at most {hard} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    here, server = socket.socketpair()
    try:
        with socket.socket(fileno=os.dup2(here.fileno(), 1100)) as high:
            assert not dropped(high)
            server.close()
            assert dropped(high)
    finally:
        here.close()
        server.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

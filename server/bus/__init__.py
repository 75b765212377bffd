"""The bus between SSH gateways and one hub (NATS): see docs/architecture.md.

Nothing here is imported by ``gambit serve``: nats-py is needed only by ``gambit hub --bus``
and ``gambit gateway``.
"""

"""Hangs on every call: each child run of the prompt would cost a full time-out."""


def transform_and_enrich_users(user_list):
    while True:
        pass

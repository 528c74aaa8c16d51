# Prompt 1: the refactored version of test_data/process_records.py.

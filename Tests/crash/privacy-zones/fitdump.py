#!/usr/bin/env python3
"""Every FIT message that is not a record, and the first/last record, with all position and time fields."""
import sys, fitdecode
for path in sys.argv[1:]:
    recs = []
    with fitdecode.FitReader(path) as fr:
        for fr_ in fr:
            if isinstance(fr_, fitdecode.FitDataMessage):
                d = {f.name: f.value for f in fr_.fields}
                if fr_.name == "record":
                    recs.append(d)
                else:
                    print(fr_.name, d)
    if recs:
        print("record[0]", recs[0])
        print("record[-1]", recs[-1])
        print("records", len(recs))

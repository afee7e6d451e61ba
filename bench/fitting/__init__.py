"""Offline fitting of System 1's heads on the labelled data in ../shared/data: dev sets, folds, fit and reports.

Nothing under evidence/ imports this package: the product loads the fitted parameters (evidence/judge/params)
and never names the data sets they were fitted on.
"""

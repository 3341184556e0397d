
ByJ
BкТяjTP€3
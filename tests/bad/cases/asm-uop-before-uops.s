.config small
uop dst_idx=0

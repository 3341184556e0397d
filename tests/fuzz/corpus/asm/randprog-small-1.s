# ovta-randprog --config small --seed 1
.config small
.buffer inp 1024
.buffer wgt 4096
.buffer acc 4096
.buffer uop 92
.buffer out 1024
.hex inp+0 099452434511f521a17a6b0118865d91
.hex inp+16 609f14dcdd86247e5204fd061fe72538
.hex inp+32 555655382479c05142e5f80a7c7ed304
.hex inp+48 fa8856061fe64a1941b3cddfebe8e6ab
.hex inp+64 62a005ce9654882a0bbe7d5241d2ff2c
.hex inp+80 680c0646e9fc51976c5b11d27df137e0
.hex inp+96 5918fbac57ce7be6c6c245245eb69638
.hex inp+112 d9e99a1885a0fe6989410661a33f3eb0
.hex inp+128 414e5a9603061af6a9b3d143d8e470d7
.hex inp+144 8aca633ed0fb74e2fa1e6b288827d4c3
.hex inp+160 e1a77dfe1b20add650a077674e33e6f5
.hex inp+176 832c8677d716ac972401fdf66cb1c5b2
.hex inp+192 b233cee7906699e1132d3662dc84fb44
.hex inp+208 bc7c03fcd4a2ebe37b82646251c052d1
.hex inp+224 31d17de74d9a5a166ac9ea6ca27344a6
.hex inp+240 0716e1ac88c28b5de9410f6806f852b9
.hex inp+256 e718b126527c6e068d0b7ab22f187ecd
.hex inp+272 ea4c6bbaf986b3d10415e2d024c53da3
.hex inp+288 4c7965e8ce21fb20e9f9e8ec8f0c1780
.hex inp+304 6e72bb45f0f1a1c6f94f0a0c4f73afba
.hex inp+320 e015546b12d2f9cbcfb0e85c3957d8fe
.hex inp+336 92951c45d064fe09ee95c4851f2a2a9b
.hex inp+352 6f3fc80607f1c8c67d9d914d2ccf6d7c
.hex inp+368 5c2eb8514b53bee60a8570b6168c4c4a
.hex inp+384 efb189452c1a836ac1732fb61f5ac70d
.hex inp+400 7c264dbbfdaf0751a5a2f107e630e53d
.hex inp+416 2ce84c036991cda64f3e7499f3e6b5f3
.hex inp+432 56a7043f1b2b68c364d5e8473e8de4ee
.hex inp+448 c829fb3491314374bd6b5fe4586c35cb
.hex inp+464 2926c4ac211284450e0dedf7df4b2f79
.hex inp+480 1e574b6f689065eaf02f1e57462cd14c
.hex inp+496 efa5772426bb5795ada9095f7a12814e
.hex inp+512 9ca1225c1182a3ecc01081ca8c429f98
.hex inp+528 89e02b878a2dc88bfcaab89683ffab2f
.hex inp+544 9670c53f4ee04d7ee4ae4146e45b1389
.hex inp+560 4d36216e76ea262687319819320061a9
.hex inp+576 8377888f38f68351df5639eeb3a0eb54
.hex inp+592 214ec5d826921e1a61575cd6cd094513
.hex inp+608 5046e1f67df58190cd61a3b1375e60c3
.hex inp+624 001a33f68afd1b0a38ada0b092dc8bea
.hex inp+640 99403c6244418516d3cfdcb071c0489c
.hex inp+656 3e37bd067ce1e5eb3130826f511c4483
.hex inp+672 cef050b4b38744d905fd4fa49751fd03
.hex inp+688 4aee6bc84083c314e3a3ca6de9bc9dc9
.hex inp+704 fd62e2f9e496caf608f1160dbdc33dce
.hex inp+720 44920b53fae243fd72376e37452058a0
.hex inp+736 fe666cb3a7f67887f5cdf3eea5784e1a
.hex inp+752 35cea8188f86b30a529c710cb96073bb
.hex inp+768 bceab7d880783d8aa29d2cf6dd2c2f24
.hex inp+784 4a6cd5070e7f28497593e0e4c14f054f
.hex inp+800 e6bd24b2dce357d9b22bbf9ca458fe18
.hex inp+816 c621277438f307414c9422129bef9aa8
.hex inp+832 9b35aad45213cbd5cd0429afb97d51d6
.hex inp+848 0a6279c371d0a0352acd8b1dec373bab
.hex inp+864 a3f036658de5e7bb91db81c9302ea3a7
.hex inp+880 0c6709b5b117a0db0eb1880f7bd820f9
.hex inp+896 454bf63462fd9694670229dab19e4be2
.hex inp+912 6c5b813a4abd988a328aefa98addae11
.hex inp+928 80f10f4e949fecd40e9ba04b89b90744
.hex inp+944 011826d02ffd184686d238b83b409745
.hex inp+960 452b28435bf63edc7b10f6412584bb3b
.hex inp+976 4428699c3c253fbbc9d93d7f59a85e38
.hex inp+992 9e71ccce28793a63dacffbf4943552ec
.hex inp+1008 206c5a09fe656eb4eb64a962812b3f91
.hex wgt+0 151bcb2d8e2aabe86be3602c41d5992e
.hex wgt+16 5834e5c950eb558608e14f0cc8bd3689
.hex wgt+32 8186cb4e86df4ef481dfe22a13c0356f
.hex wgt+48 e49a4beaf56caca98ca7e048ddc10d30
.hex wgt+64 11abdbdc96a978107e180e4fd1e1bfde
.hex wgt+80 d775e9b6663a285679b26ea1c808803b
.hex wgt+96 f3d5b19be22edd248c0ad5e2c8bb45ab
.hex wgt+112 26b913c93af10416a2ff46be50a99235
.hex wgt+128 1a465edc0a3e4629281ec591631ce45e
.hex wgt+144 c06f6636289d965c435c15b3a63378cf
.hex wgt+160 3fabf1a88cc72fd83013cca5137c8566
.hex wgt+176 867504b87cd353f6a47eff5228f0d444
.hex wgt+192 70194f42505e716e87f7fd81dbda92e8
.hex wgt+208 f87808bb2df03d3b49bec03c0d8a309b
.hex wgt+224 d980c3bad660d2f51e8d18632db5db06
.hex wgt+240 88265962b2517dee94fce408e90ab9e8
.hex wgt+256 58fe11bed2921bdd7aa177b17119c72b
.hex wgt+272 611657cf27bd783ed3b9e2d713aaa67a
.hex wgt+288 c0e2eaa0bee71c227fab1ec1a1150e58
.hex wgt+304 aa44fd335712b6eb0a8e2678808e9096
.hex wgt+320 87f426a9b8d8f5d260d6944152a1e131
.hex wgt+336 25d9e68f870c63d33bb9b2f5120bdea7
.hex wgt+352 1ee20371e9a63649222ec2432b402592
.hex wgt+368 b07ba287857e4255e68124418ddb71da
.hex wgt+384 df3e4e3a15b08f904b32de712f78b305
.hex wgt+400 22474a4a4a7e7d6a00893552a22dd239
.hex wgt+416 c8c824f36fea8cd8f3f71f9a6625f310
.hex wgt+432 5c051dd3a13a2eaf7267ec2e69b368db
.hex wgt+448 e528edefba6c413dc2bfad43ddff8e24
.hex wgt+464 8d765bc56d63f258aa9af408a5064c1d
.hex wgt+480 a7f5e5ae7dab0381d38148fd6f71719f
.hex wgt+496 49bb681bfab521fb65a3e8d0e70b8029
.hex wgt+512 9636c7bac70a15a77ea480b3cba35a30
.hex wgt+528 2fd322c549b2be488ea932712e8bde6b
.hex wgt+544 9e6c03dbdf678a868df8d136f80e3388
.hex wgt+560 d831d14114cbca57e75e0eac6ddaf3ae
.hex wgt+576 b3a3cd91d3e171cc9a941eab1a75f781
.hex wgt+592 8ccfa8a7ffc0dbfbbbfcc37cd9a0be50
.hex wgt+608 08a65d5459e2a4742017885ab0663af6
.hex wgt+624 f729c2044702540565bda6dd9bf1e987
.hex wgt+640 b6e77a4454b103c8ef323b4b5db7d52f
.hex wgt+656 005661f2b099eaf120aa7cc6dfe53408
.hex wgt+672 e8b6a0108f03481c5909942f40ff8fc8
.hex wgt+688 28e16ed817db5fbf333d6bb39566fa5d
.hex wgt+704 6df608f81dbbbdb70219a62d63ec7ad3
.hex wgt+720 b1e99b9b17a9978cfa3cdf7bdc89d0b5
.hex wgt+736 f160bfb6a586c7e3a1a71cd53a6198ce
.hex wgt+752 b713b2ea2dc1d4a4c861d93ff9f9fa91
.hex wgt+768 fa37e64706b63579451006e5de216e6d
.hex wgt+784 338069dfcbfb5ab33b25395f39ec27f3
.hex wgt+800 9a1c24deb6e71e427fff659b3d9b520b
.hex wgt+816 7d29cab9c34ceead653082f6aac2a8da
.hex wgt+832 435639cf0be052fede81ddc2fcabb90b
.hex wgt+848 8e0dfd0c6761ebd489dde6cd8fd6949e
.hex wgt+864 3a8b21db0ea9069a7eb11e40e58e4459
.hex wgt+880 9ee7969b8c50badbada23715a124f386
.hex wgt+896 0f4164c5a7f65c455afc50321883ee43
.hex wgt+912 5b1216a1d8390ba0d1876468b4d7f764
.hex wgt+928 aa7b42590fcc25fa5dfc560c71098e19
.hex wgt+944 4fd2b4a6d92faa415781b1f4e7fb0be7
.hex wgt+960 3c9af2ab926293f531028bc79828fef1
.hex wgt+976 238a54f40407c7b88800f4de5b64bd4a
.hex wgt+992 50e724fd9c15b8e1cd8ba02398b10a62
.hex wgt+1008 282e5b36e57ceee07138a0be141273ab
.hex wgt+1024 887f9aef3e423692669ac2a9fb708501
.hex wgt+1040 d079350f1d6026cfa4649e2f8d028a2b
.hex wgt+1056 4d79dabb3d65202e1477a89b25b75270
.hex wgt+1072 85638cd4102f47292c3908c24ea34a48
.hex wgt+1088 f26a691f1ab12e931f83a03cba7238c9
.hex wgt+1104 fc5e89c460bf83c148d6f95b6d710480
.hex wgt+1120 6faf482e6fefe0ac0d7565c0b9f88125
.hex wgt+1136 1ded283dd1c20246d36191e296102541
.hex wgt+1152 4c7b12eb5f3904cba01a5c5cbb184a51
.hex wgt+1168 5d2233f2906b7ac935c41deceedf41a2
.hex wgt+1184 0fa2cc080dafef44017a45464b2489c8
.hex wgt+1200 b3daafc73f07439e72bace29e40fd52e
.hex wgt+1216 2ada647027b4b29630967c9eaf38e86c
.hex wgt+1232 d9772981fc7a08d01647791523d46116
.hex wgt+1248 935b6a49253f23f6614132de77937eb2
.hex wgt+1264 7b8009be1f8f79e1e2ce5d5e8b2a3993
.hex wgt+1280 4ee9797d1c527d131d6553e6abca730b
.hex wgt+1296 f97ef8607dbc15f17ec45ddf38c2cadf
.hex wgt+1312 4745fef13f7d0df29406b0ede3d029e3
.hex wgt+1328 aa68a1c470fc2959998180a811111d8e
.hex wgt+1344 63689ce63a3fcecc33ee3eb03753c6a8
.hex wgt+1360 ce0931241ab1c667e13514ba60fab38c
.hex wgt+1376 ece31d8f00b7ad8b19e34ae8bb3c5acc
.hex wgt+1392 099f22156bcaeaff5b777d3ddb2d34e4
.hex wgt+1408 698dbda4b69677fa42b93a6e24bad103
.hex wgt+1424 443aa778c0f0b7e97b6d1cb62ac74fb3
.hex wgt+1440 d390c8c0acfe11ae0c4dd37aa71e8cfe
.hex wgt+1456 bd973e5813e3bbdbce07e96d9d741681
.hex wgt+1472 8823a9314b7740c014b829395e20c7a7
.hex wgt+1488 68100995e007ac43a657b88e5840eed6
.hex wgt+1504 9a2e8dff483785dfe5c7afb579500356
.hex wgt+1520 27b0163e8ee3d616d7fbe49e488c7ddf
.hex wgt+1536 06d27d86b23170e7a2df62463c98ce5b
.hex wgt+1552 fa7ba69c3b24ed6df5ecb70148dd798e
.hex wgt+1568 8c8570ba580797b89a9218a39ee18fb0
.hex wgt+1584 5ede65be7b7dac3431146030121e75d2
.hex wgt+1600 bf8a6a1d3ac6120b3f76360994faaaca
.hex wgt+1616 469151268a54c6e2d587ded97c70f4c5
.hex wgt+1632 30fb1c0396c0adc74b0742dde1af0ac6
.hex wgt+1648 144986b22e6f8686ac1186ab88db47d9
.hex wgt+1664 26b8adefcaaf190d1b2008734af03a2c
.hex wgt+1680 4fe16732236e86e78a26ce1ee9c07710
.hex wgt+1696 24e00de565625c5452846ed0477abe40
.hex wgt+1712 d386429afcda0fbb0b3d284f8085a041
.hex wgt+1728 a06744e4ba8bbfe5661c79640b5f481d
.hex wgt+1744 9aef81f46edc7f80819e6c4744fbfafa
.hex wgt+1760 327ecb686a68b47d768238cf7ef41ab8
.hex wgt+1776 ded08ee0aacbadfc425f7df99af3aa3d
.hex wgt+1792 63618dfcaab01b9bc14be0700803e1d1
.hex wgt+1808 964d372feb7f5013718a6a36cb808b25
.hex wgt+1824 30b2bc30fb6d03b39dc9413aedb7b40f
.hex wgt+1840 e578c7fa1acf094ab9e5d18487b95931
.hex wgt+1856 76ab915b74761ec6b9af9bf2f764700e
.hex wgt+1872 cf33a21aca504d536ca21e27cec79947
.hex wgt+1888 f1204db6b8f7b0484335bac262147704
.hex wgt+1904 9fee77e944f8daf46522a42c2b4aa54f
.hex wgt+1920 2d0915588719b60ad8398d276d1c396c
.hex wgt+1936 85ad9f753cb63d0fd961ea83937a4d6f
.hex wgt+1952 1bb0cc544627126462adafcc48df1fc4
.hex wgt+1968 948d1c7ee4c1c54f569156739c30b05d
.hex wgt+1984 a348f29c3b3c9d56056ab9ec45030d3d
.hex wgt+2000 1b6c40e874085b6dc8dfb4daa45b8ddd
.hex wgt+2016 dcb3e087d52ac631fb7a5b59aefcf05c
.hex wgt+2032 bcd2cf4ac2f14ba64ac672bdaa0f243f
.hex wgt+2048 929efbd9bed0db143a9750d3a3f737a1
.hex wgt+2064 3acc265b01cf859bcafdd98ce62fb5ad
.hex wgt+2080 838380830d1ac286012cc48ef94470d6
.hex wgt+2096 f4d43ea0562edfb16371caa4f7c62ef6
.hex wgt+2112 f4878b9c4df5329336ea4b3dcdc494f2
.hex wgt+2128 e0c2feb21240e0a5d7794b451148d643
.hex wgt+2144 cbb1216a16fe439bd4db7bf0fa6b4416
.hex wgt+2160 b8e52c1c5a8db1b887e0d61e73948884
.hex wgt+2176 3a060ea4cc7855e612376eb4974ca72c
.hex wgt+2192 f06c3e880603cbbe0c583bf36d6facfb
.hex wgt+2208 2bc9c3ef4c4718616baa1492c3fa7188
.hex wgt+2224 af0dcb1088225a61988add5fa438d424
.hex wgt+2240 bb5218f8005e182eb586aa7255035308
.hex wgt+2256 e577d4f3b6f4f514098062728ba8c045
.hex wgt+2272 6d4afe1faacab7a38066e119504f4845
.hex wgt+2288 2c176f190ca0b60b01421291913084b9
.hex wgt+2304 7bb088fe1803ec38e2202794c84453f7
.hex wgt+2320 81c5e9a1b7d2491022c5f4bb015798ff
.hex wgt+2336 e75ff80b66d6a48a19f0198ad43e7bb8
.hex wgt+2352 b5dc097a775c07cf24749fa4126163e2
.hex wgt+2368 0e6e19eb1d6c7025f0c099b1cc4e96c2
.hex wgt+2384 6e273748a9d5121d5c8550f3025cd542
.hex wgt+2400 5a28203040aaec1c72f9c9f313d32bbd
.hex wgt+2416 f5ddff52d04e749bc02ba099cf42d1e0
.hex wgt+2432 183bab75c4fa0ffdf5aaba2eca98fd9e
.hex wgt+2448 52f3a1247be3995536ff1e5bebef4dde
.hex wgt+2464 ce4d0d12ba994a557ddb3735030317cd
.hex wgt+2480 b6f542738bde595898b8e98d5f24b38a
.hex wgt+2496 6630189f0ac7b5fc45e9bda2542d56ae
.hex wgt+2512 9c0e759df61a13f25b454a8ea296b9ab
.hex wgt+2528 5d0b4e81796f6345cbe2bf69cf773ab2
.hex wgt+2544 abf97701a41250b62e8ce4843da38574
.hex wgt+2560 435ad8a0212fe2d8ba806cbc510f839c
.hex wgt+2576 22a5b5bc8418ab94062c4f80fde9b8ff
.hex wgt+2592 01eeca01b07ffba6f08eef51b60c53d5
.hex wgt+2608 d855e93e07335590c18edcc10fdb6529
.hex wgt+2624 11a4c0a559581c53bfe1e552975f1f2b
.hex wgt+2640 824b1da363374cf574ec06f1c31cc493
.hex wgt+2656 e0ec63c06b14b898cbf0286c3c71f0bb
.hex wgt+2672 6d2816d72ff89c9882da2a21cad56edb
.hex wgt+2688 f1dbe6f8a8a02c242386d47b0e123df5
.hex wgt+2704 7a9d94fce142c83093418377e6b16c2d
.hex wgt+2720 b6565cc50d10f1681b0a11970a5f9776
.hex wgt+2736 b894b6bca4f3e93c8c1354168f608d0a
.hex wgt+2752 a64ad61a364ad9c95ba57d63e1057c27
.hex wgt+2768 4dc29529446f8163b55e99859447d3c5
.hex wgt+2784 ad1166e25f8853bdf252a20406dd398f
.hex wgt+2800 04ec4f79e2ad47bfa891aac6d296ed9a
.hex wgt+2816 9ee59a2d3b9c4ddb60b3de7f5dfa19c4
.hex wgt+2832 261827535546bdecdd56b68c4879654b
.hex wgt+2848 8f2848f779e8d7d8ac12467c9c098797
.hex wgt+2864 0229cb098d10cfb73ce7ea64c10f1484
.hex wgt+2880 027df8328e4fd9d3403ba7cd5bee0880
.hex wgt+2896 68f6f40a3fb3f5eeb6e50ee1a5124ecd
.hex wgt+2912 5cb9499f808fdd4f9dcd3d2b4125bf23
.hex wgt+2928 023f4923f60bb596e9be24fe36a354e7
.hex wgt+2944 18763a65f2dc4ed3dbbc36e20930951a
.hex wgt+2960 0675034a6e934fa791c4f759f0b282db
.hex wgt+2976 d00d48d8dd07d454339af277cd446edb
.hex wgt+2992 e3569c49adaab0b331cdb2c659bd2e1d
.hex wgt+3008 b646dd801db0fc4192f79f9addb823ce
.hex wgt+3024 18ac2e3874cdfc8f534fdb572b2a4f2b
.hex wgt+3040 e084384732d558acfe04df1f7eb1fb38
.hex wgt+3056 98e2ccebc3d10429e0f1ea1e89f42a8d
.hex wgt+3072 332a4af21cdcda2e1338aa2de466d42c
.hex wgt+3088 1e9e04a5e1183bc75714224aeaff719c
.hex wgt+3104 1b2486b5ab863f7fef6c3207ff09a603
.hex wgt+3120 709e091d3c05de97fd1d5a2343c6dbe8
.hex wgt+3136 14dbbe280eb19e057fca508f3205db78
.hex wgt+3152 3d8d29d0ba3fa852c3dcf4fa75340261
.hex wgt+3168 ac2fa3e14be4fd9e76294978f5b25535
.hex wgt+3184 057a7f208d730c3e47bae8e34a140721
.hex wgt+3200 ed5289d7c08aed6d94ded15da57601d4
.hex wgt+3216 a7fc50c313f9c8eaccd1367f3dc7c518
.hex wgt+3232 202059c7e67130f799b89cb852654771
.hex wgt+3248 a72be4299056170030dd1cea8573e7b1
.hex wgt+3264 34941656a837e5646b85634fcde922b1
.hex wgt+3280 82da8529bdbc735935d533096fdaa077
.hex wgt+3296 8813a8ebf727b2b1b9d5ea5c30a9612c
.hex wgt+3312 51c54917c28406e74cf855a6b0322fb4
.hex wgt+3328 3be0f7241f51da1eeac914178baf2ed7
.hex wgt+3344 f2277b4f671f7839876567cda47f829c
.hex wgt+3360 472dc5a1c2597b0dc9d9f1b74024d2a2
.hex wgt+3376 7d913486ef31cd1d0199346f73abca51
.hex wgt+3392 55220f21be83cb56e50a63028840ccb5
.hex wgt+3408 cc56ceac2d1b621435ae7e9016ff2ef3
.hex wgt+3424 99c6b89ec833c3a52b2934942d2c8ee8
.hex wgt+3440 cd288d0ae4c1d9176c937d149ed5911a
.hex wgt+3456 d0cee4f57622288aa7322e0625679e69
.hex wgt+3472 9e732956764f65eaff080d14d1d18505
.hex wgt+3488 bba8cc6996e5203e5a397a35727e3870
.hex wgt+3504 c68ab9db9e1ad1c47d760da9ead88064
.hex wgt+3520 b4255c2249de45663a2fb34c9162a59c
.hex wgt+3536 ba2fe85306420266882070aaaf8ac79e
.hex wgt+3552 6b0d8b1b170b91f25a86ea6c5c2c3ed5
.hex wgt+3568 741bb8ca687949db011a5aa31a406a10
.hex wgt+3584 eb95301dfc44fe2f4265ef3ca886a941
.hex wgt+3600 e0556afcc433f8e5647339d87dbe3eef
.hex wgt+3616 1677b6d736d298a1f231c993480c9913
.hex wgt+3632 26b705257490468c5f5e03db75f1d319
.hex wgt+3648 2bea6302dc18ca94ce9d6390c0b0234a
.hex wgt+3664 fba50a28c919cf553d2626b265149d79
.hex wgt+3680 07f50e1bc0cb1f6ef933ae74229fae2b
.hex wgt+3696 d46ff4d7a37780a179bb9c09f08e9801
.hex wgt+3712 6b11d94b3e160e88cd4997f9465d3480
.hex wgt+3728 ed71b0b3b6f4cdf60caa7289fdfd42c2
.hex wgt+3744 4c6b7a69983cf9bfbaa1aff41cb78d8b
.hex wgt+3760 9baaea9511404f21d88fcd4dfd8ac984
.hex wgt+3776 2a9975a3eaad8c84641f4588239159fb
.hex wgt+3792 0b81854c030159aff9a8f8f18863cfe3
.hex wgt+3808 f9b7edbf5f8d34557f1caa3a23234d44
.hex wgt+3824 e2aeec40df5818f0ce7556cdb21e8bca
.hex wgt+3840 dc94944cce659b79e771aa70ed1d8943
.hex wgt+3856 67c61009ea80848de8faa96cf6881428
.hex wgt+3872 6dd8f8e40961792e1d65f9ff019390f2
.hex wgt+3888 bfad4acc444936ee2c289c3faa7509fd
.hex wgt+3904 68d60cf0e08833935da5c2b8bf6b5ff4
.hex wgt+3920 09572fd768d1c9f49c703cf6778818ec
.hex wgt+3936 5675742c849c0e89e6b395c647522316
.hex wgt+3952 449aac38d8be24f056cc0c84171470eb
.hex wgt+3968 c22e0213e792b3352d92a514f0579897
.hex wgt+3984 710d686c1d78df9adbd9cfc82f63d17c
.hex wgt+4000 d20e4f2ea2a1b7eec875093ad0dade13
.hex wgt+4016 2dab7958f3ef4712e31f1a0658a5696a
.hex wgt+4032 da658a9e481a3bca964eff3633705e60
.hex wgt+4048 4a6c3749c9a73b99d6aabb7edad5c628
.hex wgt+4064 d2f7fe53bee1a010ff4091e0d974cd64
.hex wgt+4080 c4a77c58153b02ba6b2f887bcf184bb8
.int32 acc+0 -4722 1748050742 1909753908 -790 -1757 92 -4217 -3601
.int32 acc+32 -4461 -2388 1771 -1353303372 -4075 -1044 4506 -231559247
.int32 acc+64 1159777028 -1303486394 149899722 1980 1653 408 175 1613
.int32 acc+96 1701 -1034876809 3385 4317 2493 -2607 2145072379 -2660
.int32 acc+128 422 -3031 6034894 1605 -2990 4253 3114 -1881
.int32 acc+160 -1148 -3537 2563 -119 445 -2350 -537 -3591
.int32 acc+192 -588 4780 926228398 331 -4793 -4495 -3694 -4351
.int32 acc+224 -710 -317 804377254 2546 2303 4791 -2087389725 3661
.int32 acc+256 -1910570952 -1839 3727 883872712 -4714 -1679 -2973 1689
.int32 acc+288 317845214 -23 1529 -839 -804 739128908 736478820 -2233
.int32 acc+320 -3418 1184 -3303 -2963 4212 2006585683 -2037288756 -322602955
.int32 acc+352 1152 -2764 360 -782 395759512 -4495 1561282756 -1629
.int32 acc+384 471 319 -3479 -343 -4674 -4800 -3851 1059092496
.int32 acc+416 321 -2322 -1935 4243 -4894 1931 -1860 -4586
.int32 acc+448 3508 -763 -1539516224 -2854 -1372 1147 4416 1011
.int32 acc+480 2669 2585 459 4577 4035 647637756 -1929 -2349
.int32 acc+512 443 4582 -349809575 589 4483 -1337 -3461 617428886
.int32 acc+544 1041 1849 -3322 4793 3263 -4363 -1736 278670439
.int32 acc+576 363240562 2347 -1540 -34 -1018485955 -4622 -1006 -556
.int32 acc+608 1498042995 1062029326 -1516 392923311 -1659 1411311708 -4749 1079
.int32 acc+640 -1220 3506 1313948734 2338 3355 3816 -3652 -2465
.int32 acc+672 4521 163307163 -2946 -1070381156 1355 2387 -1228 853
.int32 acc+704 -1415 -1136277867 2095503844 -2307 -3746 1388719980 -363565049 495
.int32 acc+736 -3236 4669 -1716260061 2945 -589665498 4598 -2533 -698
.int32 acc+768 -1458211295 4476 1558721743 3861 -4280 1724 -3373 789
.int32 acc+800 2889 -284 3978 1401 4860 -2098 -1732270544 1873
.int32 acc+832 -4878 -648 2522 3017 4296 -2406 -806100348 -4877
.int32 acc+864 -1709 1762 171772526 -4683 -1993005797 3290 -3188 4946
.int32 acc+896 510287114 -3660 2070 -1838569072 -4397 2066354338 4631 -358
.int32 acc+928 1462 712 269 4766 1796 3658 4055 -4651
.int32 acc+960 31 -551 3108 -4051 -1212676536 -3327 3572 -2040
.int32 acc+992 -561 2243 3013 -4781 -162 4434 1405857536 3530
.int32 acc+1024 -529 -1707606251 21483438 -3630 -132 367 3260 -922817672
.int32 acc+1056 -903 -407 -2521 1295 4097 -3274 1790 -3683
.int32 acc+1088 -4339 4223 -96 -2047 -3898 -35 -1113 -2813
.int32 acc+1120 591606826 1393606373 17 924819561 4465 -4251 1954 -935
.int32 acc+1152 470 407 214541673 -1867 -4306 -4185 1315700796 3056
.int32 acc+1184 -4425 2017499173 -4932 -4106 2222 -262 216336590 3305
.int32 acc+1216 4323 -758 -1824447819 -3449 -2064091283 -1005838023 -1170279345 -29
.int32 acc+1248 4338 -2848 -2454 -1126 2656 -2751 4786 1357558746
.int32 acc+1280 1274167114 -1713 -4633 -504 849 4337 -503 -3225
.int32 acc+1312 -909 -3768 -3738 2134 1118541881 -2421 -708649384 3481
.int32 acc+1344 -3089 -4867 -4446 503156927 -589535103 792 -4311 -1668
.int32 acc+1376 -1481 -2959 4295 -221 4968 4360 2375 -458
.int32 acc+1408 -2734 3311 -3879 -725147106 3002 499 2708 3054
.int32 acc+1440 2440 -3646 2269 -473 -1916382404 4815 -4249 1647193890
.int32 acc+1472 2382 -2524 -4195 -1064 -521738527 -1584 3170 -3232
.int32 acc+1504 3879 4466 -1097 -1129959651 309 1420 -4692 3785
.int32 acc+1536 2301 1238 570601734 -2119 138701219 2256 -3940 4395
.int32 acc+1568 -3723 2514 -1164 1597 1370 2893 -66317818 1924730482
.int32 acc+1600 -2781 4014 -4560 -3117 602 -1008379428 -4073 710
.int32 acc+1632 -3228 1770 916106084 2184 -4163 -2450 3448 -655053853
.int32 acc+1664 135282677 -3155 3035 3205 4204 -1286 -668 -2050
.int32 acc+1696 -3781 -2464 -1741 386 3796 -733 618526063 -2661
.int32 acc+1728 4744 -2193 2969 1602 3704 4501 -4755 -1757
.int32 acc+1760 1855 1104 2370 -1702 -2736 2977 -951763429 1539128491
.int32 acc+1792 -3353 3629 830 702695174 4733 1524 -2960 3328
.int32 acc+1824 -456 -2892 2801 -3641 1223325321 4142 4938 1197516085
.int32 acc+1856 1427 -2562 -705 -4317 1757 470 -2802 2177
.int32 acc+1888 1929 2032 4010 -872 412 1284612234 -1677 -900
.int32 acc+1920 -3530 -1809 3012 -4501 4222 550466266 653 3632
.int32 acc+1952 -4890 4163 -4836 1317 -1391381588 -3798 2530 611009932
.int32 acc+1984 -1678 -3329 -3658 -1562 -2255 -2199 -1212969383 -2417
.int32 acc+2016 461859285 -837 3223 1309452099 -3596 -1536 -569 3178
.int32 acc+2048 -4568 -4473 664 -1356 -3170 -1459800626 -325 -456
.int32 acc+2080 1634818493 2067 1903176516 -4572 -1476 1753166697 1666 -4162
.int32 acc+2112 1294 3004 4008 2211 -2549 2274 364 -1210
.int32 acc+2144 2062873723 4419 901685128 -1021801612 -2427 -381 3731 3110
.int32 acc+2176 -2670 1066 1542813407 2802 1091 1274 -4285 23
.int32 acc+2208 4394 -3991 1937 1153160135 -463 -2835 -4361 2003
.int32 acc+2240 -301507372 -678 553 4781 -2704 3614 480 879
.int32 acc+2272 -1975896267 855 -2548 -1129 193174932 1042 -1583 -3763
.int32 acc+2304 -3705 3336 3290 -852 3115 -2899 -272 -137172262
.int32 acc+2336 -3309 -3515 -3953 2809 2133654317 -1737 2141 -3219
.int32 acc+2368 4236 1492 4119 3913 1801291956 -4174 -808979789 3892
.int32 acc+2400 612576387 1956 -4697 2584 -3138 3131 3192 -1130
.int32 acc+2432 -1454 -2768 1861 817 4567 2838 181812303 1065
.int32 acc+2464 -736597903 1358 -1960775394 904 -4695 -3591 4283 1642
.int32 acc+2496 -4964 1483 4619 1011456430 2351 -2981 -1594 4243
.int32 acc+2528 3890 -3599 -4277 4986 2916 730 -165276300 4655
.int32 acc+2560 1032471225 -611076356 133827351 -1812 3762 -4187 -3267 461351606
.int32 acc+2592 2038795864 -1556 4418 1781635616 -1595 -4284 -3254 -639389001
.int32 acc+2624 -1876596618 -3087 1792 2051 -3607 -3197 -4252 -4599
.int32 acc+2656 -4091 2284 -1133 265675979 2928 1774 -759044256 -1696
.int32 acc+2688 -1261474954 2229 191 -425 2630 213 -862633477 555
.int32 acc+2720 438 -1994345722 -2724 493338526 -85 -4672 -1900 -3136
.int32 acc+2752 -3378 1715 2077 2530 -209 682 -4545 -3136
.int32 acc+2784 3441 1881043087 -1238 4708 -3528 -4687 4061 -200212935
.int32 acc+2816 4635 840471567 2021 -1035 3578 -2143615328 2661 -2133202110
.int32 acc+2848 1768025733 2779 4972 -2005 -1305181556 -2423 -1777 1006
.int32 acc+2880 963 -210657709 1120 1050802616 -4773 -456881889 420739739 -1761138205
.int32 acc+2912 -2078317534 -4194 -3876 4201 -1808 1067412387 862 -2843
.int32 acc+2944 3449 -4016 1667 3036 953 -129861269 1302 -206
.int32 acc+2976 1648 -4176 -4172 2935 4360 3719 1790058053 -4976
.int32 acc+3008 -2321 -4684 -2163 655 -832 3276 -2194 1991
.int32 acc+3040 -900811444 1633 4893 4818 -1687 1991 4972 -3653
.int32 acc+3072 1327 -953 -1535204485 1890 3814 1866 2157 -3701
.int32 acc+3104 1675249724 2135007818 4382 -4237 -2378 -3684 4752 1378
.int32 acc+3136 -615 222205638 -553 4575 1538330090 3266 1508 -993134686
.int32 acc+3168 -3951 4606 -1479 3293 881 4570 -4483 -1034376733
.int32 acc+3200 -3958 710 4085 3341 1145 -2624 692 -1566940818
.int32 acc+3232 4599 -435 -627 1032 -2859 206894579 567247114 3527
.int32 acc+3264 63 -344 3549 -3530 4143 3343 -375840961 1329
.int32 acc+3296 -3099 2815 3033 -2745 3108 -3283 2379 -3957
.int32 acc+3328 3578 206 3267 -4730 -156 -225 1098 -1454
.int32 acc+3360 953 720 2124 -1532 -337 -458652915 880 -2910
.int32 acc+3392 4795 -2270 838093527 472 -4414 2659 1562 3224
.int32 acc+3424 -716633245 4253 3187 -1332 302695302 1307 -1636 2563
.int32 acc+3456 4028 -398 -303 402 491 -591 375 -1989
.int32 acc+3488 -650170388 1725 -3239 1811659014 -4887 -4658 -2436 1247193709
.int32 acc+3520 1581365103 -3628 -3235 1377 735 4721 4780 -3318
.int32 acc+3552 -1687 2686 945 -473 -4859 -371 2249 -2678
.int32 acc+3584 2735 643 1558 -3577 -98268913 -4705 -1960689398 -919359989
.int32 acc+3616 -4062 4587 -1055 3722 -2264 3197 2142 -3286
.int32 acc+3648 1217357386 -4370 2437 -1872 -1012239089 4672 4538 -1250108570
.int32 acc+3680 -1304 -665 2460 -4217 -867944605 -3496 -2110242294 601
.int32 acc+3712 -3835 865 -2067 -138764400 1296 240 -4833 -841
.int32 acc+3744 222275584 -53 -4748 -1481249550 -4175 4003 -1211604825 -4257
.int32 acc+3776 -1559467150 334300416 1801 -4081 996 -1487 -3106 -4000
.int32 acc+3808 -4456 4454 3007 -4983 1219 3315 -4814 -394
.int32 acc+3840 -1979358508 890 1829 -648 -4737 1858 4099 -3560
.int32 acc+3872 -3901 -4102 -717601915 -4527 2076 -1716094207 -364213877 189245438
.int32 acc+3904 2258 1605 2558 -4211 3381 -1252 793 -866
.int32 acc+3936 539 1575756255 1945 850 -4307 -558 -833 -1444764837
.int32 acc+3968 1950449944 3545 -3493 -2082 -1921 -927 4001 -3583
.int32 acc+4000 -672831890 90 -811232824 1285527994 -1203180326 2030 438 1011
.int32 acc+4032 1561623144 2281 -1245 -4894 -1616 856 -4621 28776480
.int32 acc+4064 3573 -3680 3688 -1450947799 1570 3751 1850 -1398197710
.uops uop+0
uop dst_idx=0 src_idx=0 wgt_idx=0
uop dst_idx=59 src_idx=9 wgt_idx=27
uop dst_idx=66 src_idx=25 wgt_idx=3
uop dst_idx=63 src_idx=12 wgt_idx=63
uop dst_idx=71 src_idx=45 wgt_idx=0
uop dst_idx=62 src_idx=44 wgt_idx=0
uop dst_idx=99 src_idx=6 wgt_idx=33
uop dst_idx=90 src_idx=16 wgt_idx=21
uop dst_idx=94 src_idx=35 wgt_idx=28
uop dst_idx=1 src_idx=9 wgt_idx=0
uop dst_idx=9 src_idx=11 wgt_idx=0
uop dst_idx=1 src_idx=7 wgt_idx=0
uop dst_idx=8 src_idx=1 wgt_idx=0
uop dst_idx=24 src_idx=22 wgt_idx=1
uop dst_idx=8 src_idx=17 wgt_idx=52
uop dst_idx=4 src_idx=6 wgt_idx=0
uop dst_idx=53 src_idx=51 wgt_idx=0
uop dst_idx=41 src_idx=99 wgt_idx=3
uop dst_idx=80 src_idx=50 wgt_idx=63
uop dst_idx=72 src_idx=50 wgt_idx=0
uop dst_idx=43 src_idx=6 wgt_idx=59
uop dst_idx=42 src_idx=4 wgt_idx=24
uop dst_idx=49 src_idx=1 wgt_idx=26
.hex out+0 ac6edf77a96a65e5e2c9fb9f64250d36
.hex out+16 480e5cfa76ca090a4df18b967894001a
.hex out+32 df7e2dd548f1f2d91f9abe6df12a104b
.hex out+48 33d919007d7d946eb0a3b07ce71eca91
.hex out+64 d02697161a3954c1acf6e6097d29686d
.hex out+80 f047c7a5796246f4f9a09408ff816762
.hex out+96 86519d8cedf6fa112fcf0ff06abd0ce0
.hex out+112 6be78b7d5f1570fab38cf32670344500
.hex out+128 89e9db361cfb56d7bb521c74ac30bdaf
.hex out+144 2c8a6b0bd998e2c64b3fbfe30deac40c
.hex out+160 b36016702a5ee2be57c9e4e882b0c150
.hex out+176 16b24f60ce4f595e36553c4e4e7237fe
.hex out+192 bfe2cf70086cf2fc7c50a61b330ac298
.hex out+208 d53eb6360ebe3bb6b536a83c6a9e13cb
.hex out+224 f2894ff8d6b71952392f8cf710f49def
.hex out+240 2bd96f9199846bda08bf7267347e6f0a
.hex out+256 c5ab7edd0c4ceb2fb827821b952e33a9
.hex out+272 d397f47b0555dfeb4169081a7a379b82
.hex out+288 0e5fad1821849bed5ab110a5ca39a59e
.hex out+304 d802252720608f15256f076a89368b90
.hex out+320 f25b78ce2b4d91f6828cc6ef6ea59b4a
.hex out+336 8a106f7768ab217831d71eabe950a228
.hex out+352 24b0e50fd848d6fd328f6b109e2098ca
.hex out+368 171484594adfc7c05021e773c7f718dc
.hex out+384 d46aea3e7cae863dce110fd93bb5637a
.hex out+400 1f920672d0f1496ccb3761b954384982
.hex out+416 22d1e8a21ad3f2f88b9e62dec9832de9
.hex out+432 9f04bd01b57044ec7b03b86183b29d4d
.hex out+448 83973227ed078d1e8136edfc021fb7b3
.hex out+464 d9a1c5cdcd371a7f3f7cee3837979795
.hex out+480 0da8a24da30dd4a477a9aaa1066c7856
.hex out+496 36725a76323bc67f4be807a3177a34ef
.hex out+512 b8dfbee36419c91ca1d94cba7c755e96
.hex out+528 7d6a1ef240377e04cda83894a542b7e9
.hex out+544 63a699134c01a185013e5f58b358bb78
.hex out+560 1c8e52ad743baad717e2c977b6ccef83
.hex out+576 f7a06b4f9aa10b9ecf0b46fd9389d068
.hex out+592 17da291a7dd6c9e54aa29b5e90568829
.hex out+608 a542e77f9a2f8ef57d72bc0b69a4604e
.hex out+624 5b4f8da9d5cfc877c6d1d3fd03aa6ce9
.hex out+640 777aa595b6eaceb4b5655a954216be3a
.hex out+656 fae788be526ded922fd07cafcc087253
.hex out+672 70f4bab97f9e689f015ac2977112e381
.hex out+688 0abb8f86ae1f5b85257d6e4c95a9b6f8
.hex out+704 c56b0bd612d3c4f7d487f62c073d3539
.hex out+720 6853d52ff05e6569b2fabfe73e5e1c1d
.hex out+736 2b1eae9049873b6ea906638199bccd34
.hex out+752 8471355a9bcd633b01cbb817cd0a5f24
.hex out+768 0a932665021adee2b5d8cf3c9180cd9a
.hex out+784 0faa685e80c98677cf233d454e24a437
.hex out+800 d307df39eab042e383bff2032deda258
.hex out+816 428192898df7490a42f38f0ebeab8bb4
.hex out+832 5482e8226b1df2c8512f378494bbb5d2
.hex out+848 49fcebe8c81b8c239ba972275d47f492
.hex out+864 1b4414eea68f108e85051578f3c01aa1
.hex out+880 af70888d254f072584f3e50747531d22
.hex out+896 5941ca10b9b98d1f20fc41bf17ae51db
.hex out+912 aae2b3b3d97d107d9add21b1b2d457b6
.hex out+928 ea269383b9ac8b0b4d938e23cc99c59d
.hex out+944 99d20ed426cd79f20428baeda8748c15
.hex out+960 6f6b2a69fe5cf3f3a96111af08513315
.hex out+976 e90262e3cd707597d8166b337ce40318
.hex out+992 8108adf8dde182201f7570411ca5e6cd
.hex out+1008 cd4891af0663bfc62eaaa6b8280a87ff
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=0 dram_base=@uop+0 y_size=1 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=1 uop_bgn=0 uop_end=1 iter_out=128 iter_in=1 dst_factor_out=1 dst_factor_in=0 src_factor_out=0 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=INP sram_base=0 dram_base=@inp+25 y_size=2 x_size=64 x_stride=34 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=WGT sram_base=0 dram_base=@wgt+17 y_size=2 x_size=32 x_stride=12 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=ACC sram_base=0 dram_base=@acc+0 y_size=2 x_size=64 x_stride=62 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=INP sram_base=1 dram_base=@inp+91 y_size=6 x_size=4 x_stride=3 y_pad_0=0 y_pad_1=0 x_pad_0=7 x_pad_1=8
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=INP sram_base=9 dram_base=@inp+114 y_size=1 x_size=7 x_stride=8 y_pad_0=1 y_pad_1=2 x_pad_0=7 x_pad_1=0
LOAD pop_prev=1 pop_next=0 push_prev=1 push_next=1 memory_type=ACC sram_base=6 dram_base=@acc+42 y_size=1 x_size=4 x_stride=7 y_pad_0=0 y_pad_1=0 x_pad_0=11 x_pad_1=15
STORE pop_prev=1 pop_next=0 push_prev=1 push_next=0 memory_type=OUT sram_base=25 dram_base=@out+18 y_size=3 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=0 memory_type=INP sram_base=2 dram_base=@inp+97 y_size=1 x_size=12 x_stride=32 y_pad_0=3 y_pad_1=2 x_pad_0=4 x_pad_1=5
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=WGT sram_base=18 dram_base=@wgt+42 y_size=2 x_size=8 x_stride=4 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=77 dram_base=@uop+1 y_size=1 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=0 uop_bgn=77 uop_end=78 iter_out=8 iter_in=1 dst_factor_out=3 dst_factor_in=0 src_factor_out=15 src_factor_in=0 wgt_factor_out=2 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=125 dram_base=@uop+2 y_size=1 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=1 push_next=0 reset=0 uop_bgn=125 uop_end=127 iter_out=24 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=4 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=10 dram_base=@uop+4 y_size=1 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=0 uop_bgn=10 uop_end=12 iter_out=13 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=3 src_factor_in=0 alu_opcode=MAX use_imm=1 imm=-22252
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=68 dram_base=@out+80 y_size=5 x_size=2 x_stride=6 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=1 push_next=0 memory_type=OUT sram_base=54 dram_base=@out+6 y_size=4 x_size=7 x_stride=9 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=0 memory_type=WGT sram_base=6 dram_base=@wgt+0 y_size=6 x_size=4 x_stride=4 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=WGT sram_base=2 dram_base=@wgt+13 y_size=1 x_size=11 x_stride=12 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=INP sram_base=8 dram_base=@inp+52 y_size=5 x_size=9 x_stride=9 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=72 dram_base=@uop+6 y_size=3 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=1 push_next=1 reset=0 uop_bgn=72 uop_end=75 iter_out=16 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=4 src_factor_in=0 wgt_factor_out=2 wgt_factor_in=0
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=114 dram_base=@out+106 y_size=1 x_size=9 x_stride=9 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=85 dram_base=@out+37 y_size=4 x_size=8 x_stride=19 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=84 dram_base=@out+53 y_size=5 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=0 memory_type=WGT sram_base=7 dram_base=@wgt+15 y_size=2 x_size=12 x_stride=33 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=INP sram_base=38 dram_base=@inp+53 y_size=4 x_size=4 x_stride=5 y_pad_0=1 y_pad_1=3 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=WGT sram_base=20 dram_base=@wgt+16 y_size=3 x_size=11 x_stride=10 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=38 dram_base=@uop+9 y_size=1 x_size=4 x_stride=4 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=1 push_prev=0 push_next=0 reset=0 uop_bgn=38 uop_end=42 iter_out=16 iter_in=1 dst_factor_out=2 dst_factor_in=0 src_factor_out=2 src_factor_in=0 alu_opcode=MIN use_imm=0 imm=6609
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=78 dram_base=@uop+13 y_size=1 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=0 uop_bgn=78 uop_end=80 iter_out=24 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=4 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=25 dram_base=@uop+15 y_size=1 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=1 push_next=1 reset=0 uop_bgn=25 uop_end=26 iter_out=6 iter_in=3 dst_factor_out=0 dst_factor_in=0 src_factor_out=0 src_factor_in=55 wgt_factor_out=9 wgt_factor_in=9
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=15 dram_base=@out+15 y_size=1 x_size=12 x_stride=20 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=4 dram_base=@out+25 y_size=1 x_size=6 x_stride=6 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=30 dram_base=@out+68 y_size=2 x_size=6 x_stride=13 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=1 memory_type=INP sram_base=58 dram_base=@inp+76 y_size=6 x_size=5 x_stride=7 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=0 memory_type=ACC sram_base=62 dram_base=@acc+16 y_size=5 x_size=2 x_stride=1 y_pad_0=2 y_pad_1=2 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=82 dram_base=@uop+16 y_size=2 x_size=1 x_stride=3 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=0 uop_bgn=82 uop_end=84 iter_out=17 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=2 src_factor_in=0 alu_opcode=ADD use_imm=0 imm=-11028
LOAD pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=117 dram_base=@uop+20 y_size=1 x_size=3 x_stride=4 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=0 uop_bgn=117 uop_end=120 iter_out=2 iter_in=6 dst_factor_out=21 dst_factor_in=2 src_factor_out=65 src_factor_in=10 wgt_factor_out=0 wgt_factor_in=0
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=44 dram_base=@out+7 y_size=3 x_size=12 x_stride=12 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=0 dram_base=@out+0 y_size=3 x_size=0 x_stride=0 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=55 dram_base=@out+103 y_size=2 x_size=10 x_stride=4 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
FINISH pop_prev=0 pop_next=0 push_prev=0 push_next=0
.dump out+0 1024 hex

# ovta-randprog --config small --seed 2
.config small
.buffer inp 1024
.buffer wgt 4096
.buffer acc 4096
.buffer uop 132
.buffer out 1024
.hex inp+0 4d4b62cfd2dbfce85f0b9b066793b479
.hex inp+16 94ef91336ca56184241a083f7b466782
.hex inp+32 d1ae6eaae31b7364f4b9bc389b700115
.hex inp+48 521e0faef1a964c41ec4b06d8ed4fcde
.hex inp+64 0d6309c8c6d26bc5c7b0afd2ef3cecf2
.hex inp+80 7fe713082d022462aeb5e274dd7799a5
.hex inp+96 21523e56f0a59ef765899a62f862a71a
.hex inp+112 aa1f71144188d73a09a9b07c4911a643
.hex inp+128 3b7e84680697fef0b2bf4807555e17b0
.hex inp+144 6b673cc7d8181782ee28d90c633aa9ad
.hex inp+160 0913b6d3cbbc240e4b7e9dad8b429538
.hex inp+176 d814634f44c502417284a57256161d17
.hex inp+192 02804167a305ad0ce233cb9342243d6c
.hex inp+208 f9bd24e900d30329cdadcf95223f4e85
.hex inp+224 f25c1b54b4abb7a3af71fb251f80674f
.hex inp+240 6686020a6824f6fa3bb23ff5c720235e
.hex inp+256 00010975c99fc885cf0a09b142032edd
.hex inp+272 40a3a2d97d18e6b3fd5c4d7feb73cf5c
.hex inp+288 8e2c62465620fd904d5b61163a0e7b65
.hex inp+304 8fea51413a9759024a2781a634859e7e
.hex inp+320 6abc8dc6207577b6c68bb140d4c5a4fb
.hex inp+336 12ec8ebc87da631b2915d233c999af63
.hex inp+352 1790486594e5d7c9804798d691121c76
.hex inp+368 ca1aa6a828e6bdf63593ac310cff101e
.hex inp+384 e59a294643cea0d11d9d656a7e7bf6a0
.hex inp+400 b7345c72d01b67ee2b07820be6d0c974
.hex inp+416 3d728057361c9d5aba2344111bc4b24e
.hex inp+432 d39d96047a276c2e4d8b20c480c3b114
.hex inp+448 88e73d89434b385f77ae7c59d4bd726c
.hex inp+464 2a8005c841cd096feffd8aa98a781513
.hex inp+480 c9632d28a9848b59b9c79ec72c8fbbd8
.hex inp+496 b48ce7c4c49c645003fb8ae99a4de767
.hex inp+512 057855acb24b4b0cf007a90857bfad40
.hex inp+528 2d60b6f7813eb6c9558022caaaf5559d
.hex inp+544 1ba24a15b831664db83abdbce3212f11
.hex inp+560 aa49a49fd2219700f6b9a88049c5eb68
.hex inp+576 fc3344048eb864c4c67f6287f97f284f
.hex inp+592 a4a25e8b7433cac7cb8c64f255385ea2
.hex inp+608 acef3d323ca5eaac9d73a05d76f392f4
.hex inp+624 7f72d8e2daa0b2801161b498523c9f70
.hex inp+640 bb82aee0090f265f87fb96b81d50511f
.hex inp+656 05edf162f7f316c692ec65272a7ccc04
.hex inp+672 d86756803a70046775839c58d69afec7
.hex inp+688 aa658f13c0231e1709cffe786de1f2d6
.hex inp+704 b7a8fb42b96b17d67a33e7c62a255014
.hex inp+720 d00c06fd9cebb79d1dc8b52bb065f3b0
.hex inp+736 a7ab68e3181a449d12f6bb8b3374cae1
.hex inp+752 73a660d2fa10aadd4d7c976ca4e3023a
.hex inp+768 85b95a538f5a831a6d347fc8b701f196
.hex inp+784 66e91377215c068a101a05d636533a35
.hex inp+800 77253ccee4cfe5f1a42fdfabdbc7acd7
.hex inp+816 caff2e4e5972041243f3528079df04f2
.hex inp+832 032e1618cc9c9b7dbb4f4adfd559b952
.hex inp+848 8c31a36ed4a948b25d8f72fc70b09412
.hex inp+864 c224b65641a3af6aef3eba9f40cbf40a
.hex inp+880 b9befcc94986a525e7fce7edf30c10a2
.hex inp+896 47f7fd87266c4cc91e4e9fd22713a021
.hex inp+912 571f0cfbf0096a3df946dcdb8b11a75d
.hex inp+928 9d61552d03742252dd14f113fb5f43e0
.hex inp+944 798bd66dc801bc9b254e6d320b4c5bc9
.hex inp+960 5e88ebf812ce968ccc4015e3a6455a04
.hex inp+976 841f43ff5e46cb8ebdce05870f3c41e9
.hex inp+992 2283c37ef48b491daa515724bf789ac8
.hex inp+1008 4f096c02949e6ed04cc299240be827df
.hex wgt+0 f75fed4bd017fd64b926adb6feb599b8
.hex wgt+16 568061768ed4f647efdae6da47ddc2c0
.hex wgt+32 7eb14d68c55e7b348c4497a73e4385b9
.hex wgt+48 9708461831c3cb389d29e50d62ceee2b
.hex wgt+64 16020b8e6965b2a0dc1782840d3956d8
.hex wgt+80 6e787258cd89464e62d4bbb0d1d6073c
.hex wgt+96 9bea7812e662fbfcc98e6d3489a3fbdf
.hex wgt+112 9fbf2adb0bf0fed80af3474797952840
.hex wgt+128 703ef68277ccc1664f254707694a30f8
.hex wgt+144 2247950fcc2272088ebfd7bc96f85ab4
.hex wgt+160 b58636df3cfff9db4905447be74f0a27
.hex wgt+176 cdb37d4021e3f4202789f37abf905d8d
.hex wgt+192 7099e3ba3c78efd74062f7d51e3801e1
.hex wgt+208 c9ca35e2b1803831a179b0399f473fbc
.hex wgt+224 b7bb9dc3edcfeb475c67217f069c4df2
.hex wgt+240 cd20ad9deb6cca207e49a765488bdc5c
.hex wgt+256 a629288423f0b9657aa9b5438836002e
.hex wgt+272 8b89112929612dc2270fd2c116e0c333
.hex wgt+288 5e03e0b1e943d7a7691348daf8e71403
.hex wgt+304 d780b4a0238d9d31a928519c862dffe9
.hex wgt+320 cb701007ac9ec271a187ea8245a71068
.hex wgt+336 5eac9d84e614234641d44f25ac2eb30d
.hex wgt+352 c9f1bdcbd08f4a201b8a5ea63d069941
.hex wgt+368 0ffc92b2830a9c76bcb7091b22612197
.hex wgt+384 cf11941488ed287391aa4edcf1c961a6
.hex wgt+400 8d0dcb377b874243d5aabe1ffed7c2c8
.hex wgt+416 a29a23debc1d065402164740468f7884
.hex wgt+432 387b63cf940768bf8209593c0c4a6652
.hex wgt+448 e25aed9dcb1eee64ccf6e87192b6b498
.hex wgt+464 c836e22e4ece7e5e653c0872f62eb83a
.hex wgt+480 f76acf7e81b433df88565f517088c3b9
.hex wgt+496 9c186674881e2e6e9a67d0454cd1b40f
.hex wgt+512 e8056989ba8c0990aa6b30457bfa2bb3
.hex wgt+528 cc8f1e0ac6817d0f33d377a997098295
.hex wgt+544 1b68fc2bdb7fe9647a615e85272e1e16
.hex wgt+560 bde8c67b89a23608e03be4dc9c3b07b3
.hex wgt+576 0be37b682acddbff286a350d0b147b3b
.hex wgt+592 8eb478e270a33082567dae7b5106bed7
.hex wgt+608 aa00533686aede818be956c0cb64c01c
.hex wgt+624 2bf784918528f95cda98a4f75a849237
.hex wgt+640 d187933177d5d9471477492341fae24b
.hex wgt+656 122bc65d5cc1c4d85a799d2863f38866
.hex wgt+672 62625d287c71f9586ba25c06ae86da7d
.hex wgt+688 788a6d65050d494558a4242281983ccb
.hex wgt+704 7df8863eeab710c4cf5a43e1a8351758
.hex wgt+720 77020d1bf10335e2eaaae85919e79492
.hex wgt+736 98f8887c1a8d0184a5b786408ee18e6d
.hex wgt+752 3217b15d2c8dc7483178dce1821f43ef
.hex wgt+768 3b5dffcdab46276bec5011e5b370c3fb
.hex wgt+784 4b5d3c13e3b1273df0cf6d1596b70911
.hex wgt+800 d8858feea20ad470b8b126f1e70ea9f5
.hex wgt+816 a10209e51ce081afa3b7dc4f4091934f
.hex wgt+832 34cbf129ed93d6d5c9c541df724fcec4
.hex wgt+848 e59567587a2ab3492843275e43f1409b
.hex wgt+864 971eabe632bf3acefa39c85d8903980f
.hex wgt+880 c91c29639075152fb5e96bf49a8e722c
.hex wgt+896 1414048e1821bf63fe48c42c7b7f42a1
.hex wgt+912 917169ba2d24e9b3d9f2beb6e59b07bc
.hex wgt+928 a067b26c04288d8173984d1ac6876d23
.hex wgt+944 74c09fdefc49f7886a8d862a93f6e95e
.hex wgt+960 4f102dd2cfa855ffdf26729199739c3e
.hex wgt+976 1a8e65a31e9521c8e942a1a0cf021317
.hex wgt+992 df11ac9c44ffb4a31eba28ec65773c5f
.hex wgt+1008 aeefc9c82c9916dec085bb02354c64e8
.hex wgt+1024 a5def8c5aa2edca09c47db531f5710ab
.hex wgt+1040 5efbdcf83401ece8d7ece7c984c7cdf5
.hex wgt+1056 66266ebe47cf8d8bf8a3cdb8856ecb03
.hex wgt+1072 6c38b967e5cb3b2ccdacdcb3167a9cef
.hex wgt+1088 044ac29ec8227498b9fb9c8c300d5fa6
.hex wgt+1104 508072a66e5a25444af37b5285614443
.hex wgt+1120 7afc440954662b576d3574147fb8bb07
.hex wgt+1136 79cef0f12b2e3600b89b2eae79a3b6c5
.hex wgt+1152 1a584969c7e25ee54efbf757c4af7eb7
.hex wgt+1168 abe216314819e9e92798e6fb51c34e1d
.hex wgt+1184 7edbf881f8fcbe36e8ba5b8117dffbf6
.hex wgt+1200 1277b9404e3b226c1aaf292ce7573a70
.hex wgt+1216 fd0274a327257934b837d6aed1fae97b
.hex wgt+1232 c92e16993c42f40945fa382f0d917967
.hex wgt+1248 4702656dee2fdbdd1381563b37c747fc
.hex wgt+1264 b88aa6811822e9e74adccda31fc74c09
.hex wgt+1280 7692cbc8dbe279c4aba4771f242e83a7
.hex wgt+1296 ce68899a4c6e6759b4abcd8d644acf9c
.hex wgt+1312 e19d6d699a85709e9a1e99cd17a2819f
.hex wgt+1328 d4780f5eef00d94e0bda080d8055ca67
.hex wgt+1344 09aca1eae3a7f583dcebbc8f805fabb1
.hex wgt+1360 9b54c1f6423e5d2e09be4a09d3b2c850
.hex wgt+1376 b785205f37b531b6e2d857802f8b55ad
.hex wgt+1392 84c625e25becd0b9644fefa0c1fc3a1a
.hex wgt+1408 9635c510fc7412d7076ac5bc1e6c02d6
.hex wgt+1424 173f65738808d3ce42616f5fca66d760
.hex wgt+1440 653c3591132b81641e68ed5988313248
.hex wgt+1456 45b93bdca900657e0f06734cc7c5bbe9
.hex wgt+1472 2f301d6f567a92b427c4e168eb068ecb
.hex wgt+1488 98561935b9440208255b3368e6d1cf44
.hex wgt+1504 c9ae3fb815700068e8b9143b33981020
.hex wgt+1520 b8d2cbc4d595baa77af65cc27413eaf9
.hex wgt+1536 e9a8d88c6a20901518b81525beec751e
.hex wgt+1552 3b8830cf6b18fc831f713446d47b51d2
.hex wgt+1568 5592e9777c733dff460d5f9c6b33cc9e
.hex wgt+1584 7b74e331c87dd7476106be6ccaef582e
.hex wgt+1600 fbe1a813c2bf7c919fc61d9bcb9211a8
.hex wgt+1616 498e5de20093afecd16d6e9d5ff23908
.hex wgt+1632 71ef161f4e4424c350dd59acfa2820f1
.hex wgt+1648 86bead3a2c784c85d2a8c81f4b50823c
.hex wgt+1664 4643ce5bccf1c458a8432aaebc019aee
.hex wgt+1680 15ed185a997b32577b5ca3e8ad747f26
.hex wgt+1696 cc21e12afce71366b5c462b5bca29e8e
.hex wgt+1712 3d6e9541a79817d7c96998af0ad32e98
.hex wgt+1728 f2dfc0dda95e9abbe0aea8b1e08d7a74
.hex wgt+1744 1127c068f9d5a62e7ba7e039dd1c728d
.hex wgt+1760 41af908c6217a6d9a7f01fd688fb700e
.hex wgt+1776 ba399154c3e71a9714548bbf78036537
.hex wgt+1792 b2dc768bfa47e9672d819a3e653b7d2b
.hex wgt+1808 7b7163c458d92012857d6329179bc51f
.hex wgt+1824 dc7422bb265d548db6629a51dbc8ab62
.hex wgt+1840 05ee72ed889d9b1664136d894e8f106a
.hex wgt+1856 d24125c431ca87c7f916aa495f3145ad
.hex wgt+1872 aab706064ebff3d4e2ab38f9940cd0d1
.hex wgt+1888 5ee8a1fe263e64e6354aa8171ade02e3
.hex wgt+1904 ccc7997d593dfdb7e75d0d4e990ca0d3
.hex wgt+1920 25499920073e55eb6aa13dc9d404e407
.hex wgt+1936 da0257b3e7d935ed8f7bd532a42672ca
.hex wgt+1952 4a945e602ed660705e5d68d182e82eb7
.hex wgt+1968 8babd0d5534348445898884518fc088c
.hex wgt+1984 a96ee6272d5a57a86ccbd48b51646626
.hex wgt+2000 1d138c3c8a6d12ed7d681d4413c83f3d
.hex wgt+2016 bef9f8fc79406e16bdc276744ccd33d6
.hex wgt+2032 806e95fe6dba0ec66dd336bc2885582e
.hex wgt+2048 538a66b66205ac8e3cf20b2b7fb65e4f
.hex wgt+2064 6245caaf11f13cc2132a70ff3f80f5c2
.hex wgt+2080 7086a2b4fe7dbb8e3813b17789914913
.hex wgt+2096 bffc380caaecb6cbbd57b90f3c510b07
.hex wgt+2112 feb8c652804977a48976e2563a9d570f
.hex wgt+2128 5c6677f799621b894501daea3b792a7c
.hex wgt+2144 effbc4b663b89367ff789c7c8424bed6
.hex wgt+2160 48e707b29ced60d3311d363d8a835578
.hex wgt+2176 c913cc5ac8b123955fc576333b04be88
.hex wgt+2192 bcd0cdb3da11c99739485a1def0ffbb2
.hex wgt+2208 fcfffc6cc8773f8f18b2d52b1b5c1aa9
.hex wgt+2224 0add590fce6f1f38f24e48b4ba6c133f
.hex wgt+2240 50cc43ca601de02fb5801c4200df4629
.hex wgt+2256 943a14dd106d4c38805974693eb2657d
.hex wgt+2272 4beca53d206eda3aac23ce12f0afdaa8
.hex wgt+2288 cbf5ca93d8f9fd624f45ff5707edbaa5
.hex wgt+2304 e4c01060bee4bd629990a8adee5a05ab
.hex wgt+2320 87559d2f80b5f902b48514553b171529
.hex wgt+2336 c50b8ae47b4852c2703cecece969e9ec
.hex wgt+2352 08d3bdb403706576cb758703c21a6e14
.hex wgt+2368 03c094620f24ce554edf37a48e7cb9b7
.hex wgt+2384 c8b56ee65699105956e31f4341ae29f4
.hex wgt+2400 eac6a37a6f7ccd72fa43484b350962e3
.hex wgt+2416 c9d0c15013d98af43744a95b06c1ed6c
.hex wgt+2432 1664fdbd306ce49e4bb1a6081194ced0
.hex wgt+2448 67b5e67cc606af0116cc470f5d72cabe
.hex wgt+2464 1e555ab12a7743c30cab7a4bd9afe697
.hex wgt+2480 950524f50069abb6414cfd80ff93862b
.hex wgt+2496 c10ba96c92c1f8e87d881e74ae1850e0
.hex wgt+2512 128030298d9ecc695fc035438b08ec90
.hex wgt+2528 ed2679fdbe3b68d215c15a01ffd0f9a7
.hex wgt+2544 a2d6ca2cffd7875e31fc3be1c4e1f5e9
.hex wgt+2560 3ae64b61f819be08e536cbd02e8267ae
.hex wgt+2576 650049a79eac71a2d6bbbe51ef995f4b
.hex wgt+2592 08753faec02827fe0ebcf3ccb2b45448
.hex wgt+2608 6f79ac0a1abbc52edc312169b7b75cf5
.hex wgt+2624 4e98169c6e3d267f30d117da7aae9d0c
.hex wgt+2640 d5fe64e9ce7f3d5309a46393b3fee1b8
.hex wgt+2656 968f983d38ed36965536bb812c1a1fdb
.hex wgt+2672 063187ce992a06041edee52b729e83d4
.hex wgt+2688 29f8a696ffbd52faa58ad6536624365d
.hex wgt+2704 bebcf489b73ab33d5f41e098e8fb03a5
.hex wgt+2720 edee20698b6584cdb9606b5d96ac2a82
.hex wgt+2736 782bc2eedf44625d484087afab4d74be
.hex wgt+2752 d12ef32485280112bd7a434196f5af2f
.hex wgt+2768 3b06486d4748df97df1e6f0b165b2e64
.hex wgt+2784 06ea1fa90af762f424bef9a33c9fed27
.hex wgt+2800 3462539cb0e01b1c665545c661104486
.hex wgt+2816 45189145a08b8b4715589077227e59ca
.hex wgt+2832 824bd35c459f063a6f954425d72786f2
.hex wgt+2848 6b1a1776417ad591e238ee8dda8a260e
.hex wgt+2864 9215ad5290946a1146af3ca9c3bd0cad
.hex wgt+2880 a8235b62c6dc15c630e2dc3a303f7ea4
.hex wgt+2896 e5986f9771d76bff1fb545bef2b81693
.hex wgt+2912 4fb29bc30bef935853ee94e755d5b913
.hex wgt+2928 3b808ce531459e916e38f30b276b7be2
.hex wgt+2944 fc006aae4643a6492d3c95ce0bbbf7e3
.hex wgt+2960 f9dc0178449635ec35ed7e4b4e895d0a
.hex wgt+2976 70ef533e4ec389eaa4b6dc4569bce586
.hex wgt+2992 aac65c2c74e11f4b70f7d203f33a7928
.hex wgt+3008 63924c2a421e28a6274791e2c7068df0
.hex wgt+3024 8f84ad96931a6e58a6d4c2e9ed9ee2c8
.hex wgt+3040 775627c35a0ce4dd445abcf49d7960de
.hex wgt+3056 dffacc9443b574be5f1bc6e88bcf14dc
.hex wgt+3072 8152e8f118be89fe1450d16a5bd6f9e9
.hex wgt+3088 141e91d25f2126a72646372cd33dbc40
.hex wgt+3104 bbd42851a66127e30e01835a7af74294
.hex wgt+3120 01b8bb20a04512f65f7a922d21fe5273
.hex wgt+3136 e66cf5e2fb4bec6d91b86daaf05dc0a4
.hex wgt+3152 5a81f0635082863bbb248650f031b71a
.hex wgt+3168 fae3ddb8824521831df3a95ec8c6671c
.hex wgt+3184 59249fd0245ae064c14d852e1e976eae
.hex wgt+3200 c4992f930b0abe14abbab009428ef66e
.hex wgt+3216 d3d1a230056d7af1d732f4748367f04d
.hex wgt+3232 4f9b34fec5472609deb816baca0ea451
.hex wgt+3248 7ada3a9f0ab468787adecfc9700c127d
.hex wgt+3264 3bd44888efbe6d1dc364a96fa4a21700
.hex wgt+3280 23e3daf162512ff44b4ee558a29696cb
.hex wgt+3296 9e4d06950a23469b9582b7db8cae28d6
.hex wgt+3312 44db856faae74dd7249e3c6051189eb5
.hex wgt+3328 ccd87a26c489858f7d2552d46940da99
.hex wgt+3344 874969cb6b879df60958b62ce763be60
.hex wgt+3360 2c0995143dbc1362c00970a79346e1c7
.hex wgt+3376 dbb91cf2d166efa4d7d854d550714e5e
.hex wgt+3392 7876c9530213a0252f6d22650e939498
.hex wgt+3408 7e7188fb2cf7377f0a26976845440b23
.hex wgt+3424 d8ae8bd85a5ed57fabd0044a585218c6
.hex wgt+3440 692150631716ca1526ee7f0f34f9990e
.hex wgt+3456 8fa2d905669c712a87dad880d689e711
.hex wgt+3472 586b3d63f00c675ff137b06d0cb20539
.hex wgt+3488 59932db386e855d27ec95f7a1fb4f269
.hex wgt+3504 c65b11cc3eaa417e206329de450b9ed0
.hex wgt+3520 f773ef2a43ac4563c0d13fe02129b3fd
.hex wgt+3536 3100b5c03f8e8410fce41a00e072fc69
.hex wgt+3552 ad498ee57af3fe566e8c64f46d3e505e
.hex wgt+3568 cb5585a6c1bb460c3d365d8cba63548e
.hex wgt+3584 4205d121951fde62d19f776444abe429
.hex wgt+3600 be987c143e77d36ab1474fad0ac2b572
.hex wgt+3616 ea349b0b9ac90ab15f2cc8e86f2ba2d2
.hex wgt+3632 2b02ab2af91e37dc99cb092964fe5adf
.hex wgt+3648 d43ceaafe0161f12005df6a1a8b17fbb
.hex wgt+3664 7c1c6709cbdbd9557811304382af5764
.hex wgt+3680 f03bcf3dc44b2e787a6fc313cb1e0b20
.hex wgt+3696 ed55795b44919e7a9cdb8c5c62b8275f
.hex wgt+3712 238beffde22422e71bab936bfb97a236
.hex wgt+3728 8d287883199e734b6537af2d82346658
.hex wgt+3744 58cd3bee4effde378e1e794ae102f05e
.hex wgt+3760 b162c5e9473d19eb15b3c1d0e2c77b9d
.hex wgt+3776 0adbc5e768a27a8321e9fde6a91f9abe
.hex wgt+3792 ccaa24d14942b71eb8370f33858885c1
.hex wgt+3808 adecfec1b9e62f502615271120eb43c0
.hex wgt+3824 c4883c85444b7f73ac1806db5d3d0503
.hex wgt+3840 47158aa7aebfe1a4ef3acbd29842b533
.hex wgt+3856 7010e1fda3d1a528519aefe398a5e382
.hex wgt+3872 2b02f617bac559857911d52b77611e2b
.hex wgt+3888 7979120b3333e9eb44e7af76c5ee43d4
.hex wgt+3904 201a3d39f6a1af908a4a08ca880b5424
.hex wgt+3920 624956eb5c5e80a7eafb2322c8a5d32a
.hex wgt+3936 49ec330cceffa403a19363481e184941
.hex wgt+3952 a1d2d8b03e4cf5b5cae7899f1670f747
.hex wgt+3968 39125bd2c68c605a89b1f6d1ebd9701d
.hex wgt+3984 7599f9fe26c435cbfbc0d0105ccd1f14
.hex wgt+4000 7c7856c6a9e61ca8f1ec5cb2858adfad
.hex wgt+4016 5c0e217344b78349acf92e88538ffaed
.hex wgt+4032 41c70f489185ce62aa7eadf74ee1afd1
.hex wgt+4048 c2dcc798ff7074d44b2e3743b26fef0a
.hex wgt+4064 81835aa8958f20e3d6c07bd54a24c79c
.hex wgt+4080 fc6e7b0b667bc8a71edd71bb7b3d746e
.int32 acc+0 -2652 -31810071 4035 452 2462 2195 -3151 -3481
.int32 acc+32 -3505 1496 -2793 -2153 1349 221 -1212 4701
.int32 acc+64 -1825 -4064 901 -2384 504 -3653 930 4298
.int32 acc+96 769 3876 -4924 -4123 4583 1691 -2095 -2817
.int32 acc+128 -4032 -4122 1555 400 606 -3359 -3621 -1873839119
.int32 acc+160 2361 -1884 4669 -3593 373 3613 -3854 -1728863373
.int32 acc+192 1986 4539 3254 1409 -4938 -4143 4423 -2846
.int32 acc+224 938 4208 4736 -1605 1414 2117795117 -502177479 3631
.int32 acc+256 3327 3540 -3365 -4882 1563 -1894 -4782 1098870892
.int32 acc+288 -1313270713 -3637 922111420 1616 -3564 4696 -3423 2513
.int32 acc+320 397628480 4516 -1544107085 36 1927 3319 1802796546 1559
.int32 acc+352 -3714 3486 -1158 4636 1709223539 -1841051806 532920960 -4206
.int32 acc+384 -1089 998 1999183971 3689 -2123 -4743 -3198 -460
.int32 acc+416 4354 -3517 -920 -1936418225 -3908 -715 4162 -3097
.int32 acc+448 -1624 1467 3836 133 -4274 -828000510 -4919 -1906651661
.int32 acc+480 4357 1213 3862 -1199 -1878257877 -1950 -1333 -1828097602
.int32 acc+512 -3005 -806 -4458 468 -173 -2053 3676 -1150
.int32 acc+544 4424 4776 -907564898 2158 980 -3086 1005287136 -1063559
.int32 acc+576 3287 -3475 -91 3737 -1294 -1991776214 4759 -3607
.int32 acc+608 -1858 2255 -3736 -1688 -251671431 -3219 286 -1735
.int32 acc+640 2041 -69 -4497 -4722 2596 -242581056 -2815 1320
.int32 acc+672 294 4286 1554 -609 884150709 1695 -1900 -4674
.int32 acc+704 -414384823 868 1870 4855 -4819 590986613 -4219 -4728
.int32 acc+736 -1460 -1152626217 -1660 355 -4542 -4216 1795386814 -650008805
.int32 acc+768 -4400 2626 4122 -415022689 1442278466 4992 -1772 -779660695
.int32 acc+800 -2847 4217 -2040 3019 3736 137847593 767 1861
.int32 acc+832 -3525 -421 2161 1963 -1249829716 3006 1348739999 4747
.int32 acc+864 -2229 1617 1577540744 1432918726 -1133 843 1847099743 69090264
.int32 acc+896 -2807 54 1302 -3333 4377 -3373 -4909 1153
.int32 acc+928 119 -1559 4384 1796411800 -3182 2022 -708485080 -3678
.int32 acc+960 -288905670 4991 70870899 -2982 645743287 -2583 -1328 4189
.int32 acc+992 -2026 -3095 1631 -3343 4094 2970 2887 479
.int32 acc+1024 4055 -1011658264 -4537 3990 2876 -4895 4190 434
.int32 acc+1056 -3045 2232 2182 1900632297 -49 -1841 -445 -2603
.int32 acc+1088 2885 1614 139 -2022436412 534 184116805 -1330 -3001
.int32 acc+1120 2193 -3927 -3584 1986 -419655937 -4555 246812603 4338
.int32 acc+1152 -37317224 -3775 -886 3555 3109 -956 4575 4497
.int32 acc+1184 -2124 4159 1623 -779019703 -769268853 -983 -2123 3001
.int32 acc+1216 -2468 1236 -466 -2663 1429427164 -2908 4864 1311
.int32 acc+1248 -606 -1438941044 3916 -104 4947 -30 3663 1306
.int32 acc+1280 3092 -4637 1563 -600 -599 -510 197659203 -3344
.int32 acc+1312 43636610 -3680 -519 2779 1283 -4890 117554213 -2149
.int32 acc+1344 3176 -4209 -4964 3134 -1083642738 502823285 -1498010076 -1685980710
.int32 acc+1376 -177 -223305659 -4747 1093 48 767808865 -835 2884
.int32 acc+1408 4108 -605 -4293 2039374540 733 -2568 -3245 1896454453
.int32 acc+1440 -1286 -1349270570 -4202 -3436 -296 3343 380 -3832
.int32 acc+1472 411 899 -4256 2343 -347809706 -3912 -765 1721859709
.int32 acc+1504 -41 -434 -3191 -3949 4096 -35 1420 -1596
.int32 acc+1536 668771567 4256 -359871416 927 1137 -2452 -2956 1510
.int32 acc+1568 502 -2163 -4440 2815 -4510 1669 1083 -4551
.int32 acc+1600 -3086 -81 -1968015198 748671074 2130182646 1326909779 1642 2972
.int32 acc+1632 -766 -3734 4874 1352033114 2036 2143 -914 -703243536
.int32 acc+1664 973 -501750275 -2406 -638 -1693 4235 3364 -2423
.int32 acc+1696 -1228 -3529 1322184506 2046 -235 -2359 1352 289820413
.int32 acc+1728 4216 646 -4115 -4476 2586 -1467446774 -198003534 4500
.int32 acc+1760 -2175 -278 3907 328 2209 -3568 1922915562 -2980
.int32 acc+1792 4706 -2125 2728 350 2598 1417 4438 -4344
.int32 acc+1824 -2739 -2418 -1698012334 3666 -3917 971 -449 -4881
.int32 acc+1856 378953121 87328453 -1065 -2992 4704 1583 -852258199 -407
.int32 acc+1888 -3479 -1412 -1286556610 -4879 -3897 -4181 410 -4458
.int32 acc+1920 1236689382 2913 2403 1141 -3868 -46 4711 427801868
.int32 acc+1952 -3976 3913 -3145 -136 4884 -633352782 -3390 -2031179553
.int32 acc+1984 3168 1978 -171 432 -1609 572018647 2038 497958437
.int32 acc+2016 -4576 -1985024683 -1212 3509 -1327 -2567 2968 -8
.int32 acc+2048 -1591 -933 -1838 -1742013738 57 910879126 -2940 3569
.int32 acc+2080 -384881069 -1268 4702 -2846 1997 4488 1934600919 1969268136
.int32 acc+2112 -252357746 -4477 -3309 1247 1708 -1781 1002 -742665847
.int32 acc+2144 -4938 4768 2184 -1199607324 -3754 -494 4078 -1161
.int32 acc+2176 -42 -1139 -2591 -737 -2440 1086977233 -2210 139
.int32 acc+2208 -326500493 3417 2186 260 2220 4313 -1234 -657
.int32 acc+2240 -824 3322 -1470 1686983058 -3045 -1504 -704 -1177747415
.int32 acc+2272 -428 460 -2261 -642869898 -2727 847 414 1128
.int32 acc+2304 -3781 -852 2671 4496 -1724 -2323 4490 2702
.int32 acc+2336 318283018 502 -2678 -4123 -1476 4601 908745681 1882
.int32 acc+2368 1249 1132 -335 -151 4442 1389983682 4192 -3606
.int32 acc+2400 -4053 4668 -324 1559509607 -513 94669842 -3232 405
.int32 acc+2432 -2647 -3799 -736302668 -371 384 -707 1818 2053
.int32 acc+2464 1096 3677 -3490 3268 -4421 -3388 -3466 1981855228
.int32 acc+2496 -3312 4484 2069341612 -662 -1039 295 -1528 194
.int32 acc+2528 -3039 308 2507 982685857 -2645 80 454 570
.int32 acc+2560 -1205 -1216899722 185780062 1751284455 -1058 -185 -1770575853 3801
.int32 acc+2592 -3282 -4162 -775 2507 -4854 1273 -3640 2200
.int32 acc+2624 4502 3741 -602 4244 2116 3959 3110 -3962
.int32 acc+2656 1852 -1356477755 -1541 582554288 4375 -3570 3020 2711
.int32 acc+2688 3045 -1588 -2064 93 -2328 -1232939596 931 1072
.int32 acc+2720 4324 -2727 -1338 -668 4010 2720 1803 843
.int32 acc+2752 531 -1074 4638 -1393 235964847 -4931 -2127061825 3076
.int32 acc+2784 -4760 1590949952 1783 -2463 940161960 -915 4708 487
.int32 acc+2816 2358 -195 273 -825 -4087 -1893550386 -2022 -887
.int32 acc+2848 -2187 1813561640 -766 -1783497852 1046 -3417 -2953 4802
.int32 acc+2880 339 1313 2597 -4134 715 126 3154 1946
.int32 acc+2912 652 -2659 3573 3292 -376 1146897008 4772 -4316
.int32 acc+2944 3739 4448 3751 -1260 4383 4138 -330 -1850
.int32 acc+2976 -88 4404 -949 -3298 3741 1955330952 -1003 3476
.int32 acc+3008 -1098481368 3562 3069 -615 -1088642341 -4406 -3390 3521
.int32 acc+3040 1918 -495367270 175 774 -191 -3683 -4175 4884
.int32 acc+3072 1550452622 89 -3249 2589 -4417 267037275 -2174 -227
.int32 acc+3104 -1715303812 4542 -4735 -317826735 -4436 -1778698378 -1501516479 -1704
.int32 acc+3136 -3896 -52 963 4365 -4899 101 339 -1461
.int32 acc+3168 279941399 1332 2473 2918 4418 -4540 3010 1119
.int32 acc+3200 4134 1158305128 -652809584 862 2774 -4816 2786 -4510
.int32 acc+3232 -304 -3490 612 737589006 -1499 -436 -886 3273
.int32 acc+3264 -1771513740 -2916 -362 2566 146601072 242403625 996271958 -3039
.int32 acc+3296 4662 -2968 4648 2904 1911 3878 -3441 914
.int32 acc+3328 -99 2211 -2681 2023 442 668 -268 2356
.int32 acc+3360 2996 -1621976908 123 -2027951399 -3123 164 1194345351 -2678
.int32 acc+3392 -2208 -2290 -2625 -2816 -4280 4721 4390 3735
.int32 acc+3424 -4715 3566 1731320554 3733 -4748 -1424 233 -1088
.int32 acc+3456 2276 568301555 -3046 1945 1250 2289 -1295 1363
.int32 acc+3488 2459 1716453573 3551 -1350 -24870233 -251 -2754 -3440
.int32 acc+3520 424256914 3132 -1460 -1140 -692 2473 802 948237834
.int32 acc+3552 -869254565 1807 -827 -517 -3347 -3351 934 -3244
.int32 acc+3584 -624231056 2730 1610986241 -581777156 -2732 -524267190 -4750 827
.int32 acc+3616 4897 -108 -1299 -2592 -4726 -3845 2492 4478
.int32 acc+3648 -2945 -2485 4460 -1263 -1185 3395 -4889 2062
.int32 acc+3680 -1267 1655 626950660 -4602 1933 139266294 -184 -2933
.int32 acc+3712 -3004 1761 3099 -4226 -926037330 -1816 2819 -499
.int32 acc+3744 3494 -1883369959 -123 3135 493 3466 -970599955 -2212
.int32 acc+3776 4965 2362 1216515622 -2046 2164 1278407177 -4160 1351188019
.int32 acc+3808 -407 4686 4078 605 -578 611 4519 1671
.int32 acc+3840 3903 1596 -1578171975 -4807 -1840 1910 4960 3765
.int32 acc+3872 -2174 -860 1700 -1402450659 2174 -683 1148 1249
.int32 acc+3904 -3658 206 2119 -2725 3895 -1276 -613 1518
.int32 acc+3936 -768080832 -285 -2130 2165 -3192 1301 3961 -4163
.int32 acc+3968 -3240 -2243 2519 2906 1875972189 -1738 614 -845
.int32 acc+4000 1516 278 1258495219 -1448435949 116664974 -1315 2063069617 3003
.int32 acc+4032 955 969 417887510 -184955258 -4218 -2854 43 -1204
.int32 acc+4064 -1695026777 4598 811 -4609 -893 1739 -4580 4580
.uops uop+0
uop dst_idx=0 src_idx=0 wgt_idx=0
uop dst_idx=42 src_idx=3 wgt_idx=1
uop dst_idx=59 src_idx=4 wgt_idx=14
uop dst_idx=4 src_idx=8 wgt_idx=0
uop dst_idx=37 src_idx=3 wgt_idx=0
uop dst_idx=9 src_idx=5 wgt_idx=0
uop dst_idx=37 src_idx=7 wgt_idx=0
uop dst_idx=49 src_idx=8 wgt_idx=0
uop dst_idx=31 src_idx=0 wgt_idx=0
uop dst_idx=4 src_idx=1 wgt_idx=0
uop dst_idx=74 src_idx=84 wgt_idx=0
uop dst_idx=66 src_idx=96 wgt_idx=0
uop dst_idx=69 src_idx=112 wgt_idx=0
uop dst_idx=67 src_idx=107 wgt_idx=0
uop dst_idx=94 src_idx=115 wgt_idx=0
uop dst_idx=87 src_idx=127 wgt_idx=0
uop dst_idx=12 src_idx=0 wgt_idx=0
uop dst_idx=68 src_idx=1 wgt_idx=18
uop dst_idx=93 src_idx=26 wgt_idx=12
uop dst_idx=65 src_idx=20 wgt_idx=3
uop dst_idx=79 src_idx=4 wgt_idx=0
uop dst_idx=73 src_idx=84 wgt_idx=0
uop dst_idx=105 src_idx=105 wgt_idx=0
uop dst_idx=100 src_idx=89 wgt_idx=0
uop dst_idx=66 src_idx=95 wgt_idx=0
uop dst_idx=67 src_idx=92 wgt_idx=0
uop dst_idx=66 src_idx=66 wgt_idx=0
uop dst_idx=65 src_idx=101 wgt_idx=0
uop dst_idx=64 src_idx=70 wgt_idx=0
uop dst_idx=65 src_idx=77 wgt_idx=0
uop dst_idx=64 src_idx=92 wgt_idx=0
uop dst_idx=21 src_idx=56 wgt_idx=31
uop dst_idx=10 src_idx=50 wgt_idx=27
.hex out+0 26780a3b960729b1579bc250901590ad
.hex out+16 ff56d4a6c2b33d1769fe93959c03aa79
.hex out+32 6f0bed7f5594dff79c7470a090c9c560
.hex out+48 24598c5bae1b8fed2ef755c9b4780d68
.hex out+64 2275544681828e594483ee1441be5db1
.hex out+80 9caddc13b0d5a063f79e7346d98b631a
.hex out+96 93e5f42ac3e7a2a52d149d7fd9d0a9aa
.hex out+112 f3a871426f1de861609eaa0efea0578b
.hex out+128 190b661e75dfe1a08a93d8330ada9652
.hex out+144 9f50559e28fcc324497dfd54c0b5cc29
.hex out+160 2613e435873da8e22df681d51facc019
.hex out+176 d6c2724a0e1ecf4b82beda6d951d5655
.hex out+192 9f31140760e7724e9cbcb7ff0c709ecd
.hex out+208 5f2f36171ae3dfee897c80cb6bbb9e0e
.hex out+224 de5a4b8d3089352026d57ced04be3809
.hex out+240 282e4369d3ab944dfb6043f1728bbb12
.hex out+256 ac78a7cb4d0f8a11c2bf127bc5307283
.hex out+272 07b7a3308fefd674ab15429da4c918f1
.hex out+288 72597f523a53708e8b91e3374b8a9fd9
.hex out+304 749c737f3c7629d1dadaa5e8746f7575
.hex out+320 5600c67e64f6afbee9892ed9396ac0ff
.hex out+336 5b205ab10abc61d721d1256719b8341b
.hex out+352 b8170d456fd9ddc9b10866a2983c9f8d
.hex out+368 f616d4a64d630570e8d3484e7a3a6045
.hex out+384 8a2ac344ae4aabe0e9d54a6fb3e47638
.hex out+400 ef71793e94599a5ca849bae774a9a120
.hex out+416 2c4c8d06baf268c93366fb5e4248ad40
.hex out+432 5d7b6439fb4f0a9e12abad0bc1344221
.hex out+448 2740b26a4e7c923337ade73771d145dd
.hex out+464 79594c85ece77fe5a43049e07c226ffb
.hex out+480 9f1aa6c2e3de700b27d60fdc180ffed3
.hex out+496 e005fcc56bf62ba607a631e9b3f8259e
.hex out+512 7e26be15245674bdae8270c2d4cd1f14
.hex out+528 3f9375858982a98a59be5bcd3a3c6567
.hex out+544 86d4e641354929d154d45dca8b5e48ae
.hex out+560 d9ac6415d29c121ccf85efc22675181e
.hex out+576 e7cd68cecaa24d10f6211e459765f82f
.hex out+592 e8b3ebf65305dec27cd9c0728ac6d84b
.hex out+608 cc9b5772ff2451d4e37d9df4761bd775
.hex out+624 64dbce42da78eac11b05eb0179aa9731
.hex out+640 f531fd60b844e026308e0d96a624438b
.hex out+656 4c83d6e3aa39fb22f6ee5221e342392b
.hex out+672 e32bd1d1370b4b02e679cf0856755fb0
.hex out+688 0c0e63b2966b3cef4d9501b79cc261e5
.hex out+704 c4416788b31da74175bee8f435ed0009
.hex out+720 70e2b1dd3b5bf52e8092382e7415883d
.hex out+736 504d5aff5a636ab4c52780565451d496
.hex out+752 d0822ed8824bc4351c8902d9d0a9f212
.hex out+768 5628e4eb936424aec6a2d978196d48f5
.hex out+784 c0f30ac3765f0dfd67a84328c8b95a85
.hex out+800 29b42d476482223f82580094196b2522
.hex out+816 27f78d11db5af52583076a004a9d43b5
.hex out+832 5b570d80325fad79771c8992e7d7258d
.hex out+848 983e6c3ef327a7454ac3925a11f36e11
.hex out+864 90469a2c759e9b55342b1d830ab76c57
.hex out+880 0e422ac0595218a703fbd3502cf6bb6c
.hex out+896 c020302f7ccb82036e041dc3b66b2722
.hex out+912 de6162521452249d6c8f05a393c2ae35
.hex out+928 e5cc62d90db5349858836cb435c79647
.hex out+944 578aa0a7b1b1a771ca8697a35f331241
.hex out+960 660898566e5610123803583fb8f4c803
.hex out+976 ced0dbccc9199524547bcd66c282c4f5
.hex out+992 92bb1adb4da11b798be89ce361fe14da
.hex out+1008 165c6f68163d12fede0b89406eb928d8
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=0 dram_base=@uop+0 y_size=1 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=1 uop_bgn=0 uop_end=1 iter_out=128 iter_in=1 dst_factor_out=1 dst_factor_in=0 src_factor_out=0 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=INP sram_base=0 dram_base=@inp+16 y_size=2 x_size=64 x_stride=17 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=WGT sram_base=0 dram_base=@wgt+1 y_size=2 x_size=32 x_stride=14 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=ACC sram_base=0 dram_base=@acc+19 y_size=2 x_size=64 x_stride=37 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=INP sram_base=0 dram_base=@inp+3 y_size=1 x_size=2 x_stride=5 y_pad_0=1 y_pad_1=0 x_pad_0=11 x_pad_1=6
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=WGT sram_base=12 dram_base=@wgt+31 y_size=1 x_size=8 x_stride=10 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=ACC sram_base=0 dram_base=@acc+0 y_size=3 x_size=0 x_stride=0 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=110 dram_base=@uop+1 y_size=1 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=1 pop_next=0 push_prev=1 push_next=0 reset=0 uop_bgn=110 uop_end=112 iter_out=19 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=2 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=6 dram_base=@uop+3 y_size=1 x_size=5 x_stride=8 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=0 uop_bgn=6 uop_end=11 iter_out=12 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=5 src_factor_in=0 alu_opcode=MIN use_imm=1 imm=8304
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=52 dram_base=@uop+8 y_size=1 x_size=2 x_stride=5 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=0 uop_bgn=52 uop_end=54 iter_out=6 iter_in=4 dst_factor_out=2 dst_factor_in=6 src_factor_out=7 src_factor_in=9 alu_opcode=MIN use_imm=0 imm=14603
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=26 dram_base=@out+112 y_size=2 x_size=5 x_stride=5 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=1 push_next=0 memory_type=OUT sram_base=10 dram_base=@out+70 y_size=5 x_size=10 x_stride=3 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=INP sram_base=51 dram_base=@inp+82 y_size=1 x_size=9 x_stride=9 y_pad_0=0 y_pad_1=0 x_pad_0=10 x_pad_1=2
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=INP sram_base=51 dram_base=@inp+69 y_size=1 x_size=4 x_stride=4 y_pad_0=1 y_pad_1=0 x_pad_0=9 x_pad_1=3
LOAD pop_prev=1 pop_next=0 push_prev=1 push_next=0 memory_type=UOP sram_base=116 dram_base=@uop+10 y_size=1 x_size=6 x_stride=6 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=0 uop_bgn=116 uop_end=122 iter_out=16 iter_in=1 dst_factor_out=1 dst_factor_in=0 src_factor_out=0 src_factor_in=0 alu_opcode=MUL use_imm=1 imm=-137
STORE pop_prev=1 pop_next=0 push_prev=1 push_next=0 memory_type=OUT sram_base=74 dram_base=@out+78 y_size=4 x_size=12 x_stride=3 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=WGT sram_base=0 dram_base=@wgt+0 y_size=0 x_size=0 x_stride=0 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=WGT sram_base=42 dram_base=@wgt+24 y_size=3 x_size=7 x_stride=7 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=INP sram_base=89 dram_base=@inp+6 y_size=1 x_size=7 x_stride=7 y_pad_0=0 y_pad_1=0 x_pad_0=7 x_pad_1=15
LOAD pop_prev=1 pop_next=1 push_prev=0 push_next=0 memory_type=UOP sram_base=54 dram_base=@uop+16 y_size=1 x_size=1 x_stride=1 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=1 uop_bgn=54 uop_end=55 iter_out=4 iter_in=6 dst_factor_out=9 dst_factor_in=0 src_factor_out=0 src_factor_in=5 wgt_factor_out=2 wgt_factor_in=1
STORE pop_prev=1 pop_next=0 push_prev=1 push_next=0 memory_type=OUT sram_base=3 dram_base=@out+60 y_size=5 x_size=12 x_stride=12 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=1 memory_type=WGT sram_base=0 dram_base=@wgt+1 y_size=1 x_size=4 x_stride=12 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=ACC sram_base=81 dram_base=@acc+58 y_size=1 x_size=9 x_stride=15 y_pad_0=2 y_pad_1=2 x_pad_0=0 x_pad_1=0
LOAD pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=71 dram_base=@uop+17 y_size=2 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=1 push_prev=0 push_next=0 reset=0 uop_bgn=71 uop_end=75 iter_out=16 iter_in=1 dst_factor_out=1 dst_factor_in=0 src_factor_out=1 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=37 dram_base=@uop+21 y_size=1 x_size=4 x_stride=4 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=0 uop_bgn=37 uop_end=41 iter_out=11 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=2 src_factor_in=0 alu_opcode=ADD use_imm=0 imm=-1702
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=75 dram_base=@uop+25 y_size=1 x_size=6 x_stride=6 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
ALU pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=0 uop_bgn=75 uop_end=81 iter_out=5 iter_in=3 dst_factor_out=6 dst_factor_in=18 src_factor_out=4 src_factor_in=4 alu_opcode=MIN use_imm=1 imm=-32443
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=100 dram_base=@out+75 y_size=1 x_size=12 x_stride=25 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=0 dram_base=@out+0 y_size=0 x_size=0 x_stride=0 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=76 dram_base=@out+40 y_size=6 x_size=5 x_stride=3 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=0 memory_type=INP sram_base=45 dram_base=@inp+103 y_size=1 x_size=12 x_stride=5 y_pad_0=0 y_pad_1=0 x_pad_0=1 x_pad_1=3
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=WGT sram_base=30 dram_base=@wgt+3 y_size=1 x_size=12 x_stride=12 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=0 push_prev=0 push_next=1 memory_type=WGT sram_base=30 dram_base=@wgt+29 y_size=1 x_size=12 x_stride=13 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
LOAD pop_prev=0 pop_next=1 push_prev=0 push_next=0 memory_type=ACC sram_base=2 dram_base=@acc+62 y_size=1 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=1 x_pad_0=10 x_pad_1=15
LOAD pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=UOP sram_base=96 dram_base=@uop+31 y_size=1 x_size=2 x_stride=2 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=1 reset=0 uop_bgn=96 uop_end=98 iter_out=4 iter_in=1 dst_factor_out=12 dst_factor_in=0 src_factor_out=9 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0
STORE pop_prev=1 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=30 dram_base=@out+123 y_size=3 x_size=1 x_stride=0 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=55 dram_base=@out+34 y_size=3 x_size=3 x_stride=9 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
STORE pop_prev=0 pop_next=0 push_prev=0 push_next=0 memory_type=OUT sram_base=1 dram_base=@out+112 y_size=2 x_size=11 x_stride=3 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0
FINISH pop_prev=0 pop_next=0 push_prev=0 push_next=0
.dump out+0 1024 hex

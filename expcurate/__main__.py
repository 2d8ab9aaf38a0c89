from expcurate.cli import main

main()
